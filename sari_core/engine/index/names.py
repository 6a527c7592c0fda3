"""Matching symbol names the way people type them: ``exact``, ``prefix`` or ``fuzzy``.

Every mode ignores case and the difference between camelCase, PascalCase, snake_case
and kebab-case: ``get_user``, ``getUser`` and ``GetUser`` are the same name. ``fuzzy``
also accepts abbreviations: each word of the query starts a word of the name, in order
(``getusr`` no, ``get_u`` and ``gUser`` yes), or the query's letters appear inside the
name's letters (``username`` in ``getUserName``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

MatchMode = Literal["exact", "prefix", "fuzzy"]

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")


def words(name: str) -> list[str]:
    """The lower-case words of a name: ``parseHTTPRequest_v2`` -> parse, http, request, v2."""
    return [word.lower() for word in _WORDS.findall(name)]


def folded(name: str) -> str:
    """The name without case or word separators (what ``exact`` and ``prefix`` compare)."""
    return "".join(words(name))


@lru_cache(maxsize=65536)
def folded_name(name: str) -> str:
    """:func:`folded`, cached: the indexer folds every symbol it stores, and names repeat."""
    return folded(name)


def matches(query: str, name: str, mode: MatchMode) -> bool:
    """Whether ``name`` is what ``query`` asks for under ``mode``."""
    wanted, candidate = folded(query), folded(name)
    if not wanted:
        return False
    if mode == "exact":
        return candidate == wanted
    if mode == "prefix":
        return candidate.startswith(wanted)
    if wanted in candidate:
        return True
    return _word_prefixes(words(query), words(name))


def _word_prefixes(query_words: list[str], name_words: list[str]) -> bool:
    position = 0
    for part in query_words:
        while position < len(name_words) and not name_words[position].startswith(part):
            position += 1
        if position == len(name_words):
            return False
        position += 1
    return True


def rank(query: str, name: str) -> int:
    """0 for the same spelling, 1 the same name, 2 a prefix, 3 anything else matched."""
    if name == query:
        return 0
    wanted, candidate = folded(query), folded(name)
    return 1 if candidate == wanted else 2 if candidate.startswith(wanted) else 3


def like_pattern(query: str, mode: MatchMode) -> str:
    """A SQL LIKE pattern (ESCAPE '\\') that every matching name satisfies."""
    parts = words(query)
    first = parts[0] if parts else query
    escaped = first.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"{escaped}%" if mode != "fuzzy" and len(parts) <= 1 else f"%{escaped}%"


def dotted_parts(query: str) -> list[str]:
    """``Session.send`` -> ``["Session", "send"]`` (``::`` and ``#`` separate too)."""
    return [part for part in re.split(r"\.|::|#", query.strip().removesuffix("()")) if part]
