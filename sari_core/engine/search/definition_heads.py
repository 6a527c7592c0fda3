"""A definition's head: the lines that say what it is for, read when ranking by words.

A definition's chunk in the word index holds every word of its body, so a long function
that merely uses a word ("timezone" passed along, "cookie" in a log line) holds it as
surely as the function that is about it. What a definition is about is said at its head,
and the word search ranks a definition whose head holds the query's words above one whose
body alone does (see :mod:`sari_core.engine.search.word_search`). The head has two parts:

* what the definition *says* it does: its name, the summary that opens its docstring (its
  first ``SUMMARY_LINES`` lines: the summary line, also when the quotes stand alone on the
  line before it; the rest of a docstring is detail, as its body is), and a comment written
  right above it (``#``, ``//``, ``/*``, ``*``: languages without docstrings put it there);
* what it *takes*: its signature (the first line and those continuing it, up to the line
  that opens the body: ending with ``:`` or ``{``, or holding ``=>``; ``SIGNATURE_LINES`` at
  most), whose parameters name what it works on, a weaker sign than what it says.

A name glued from lower-case words (``fromtimestamp``, ``readlines``) says them too, less
surely than words written apart: :func:`glued_words` are its parts (only a split into words
of the shipped vocabulary, :mod:`sari_core.engine.search.glued_names`, so ``command`` stays
whole), which the word search counts as head words of a weight of their own.

The head is found from the stored text, without parsing, for any language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from os.path import commonprefix

from sari_core.engine.index.word_chunks import code_words
from sari_core.engine.search.glued_names import glued_parts

SIGNATURE_LINES = 8
SUMMARY_LINES = 2
COMMENT_LINES = 6
_COMMENTS = ("#", "//", "/*", "*")
_QUOTES = ('"""', "'''")
_STRING_PREFIXES = "rRuUbBfF"
# What tells two forms of one word apart after their common start (``retry``, ``retries``;
# ``format``, ``formatting``; ``parse``, ``parsing``): not ``form`` and ``format``.
_FORM_ENDINGS = frozenset(("", "e", "y", "s", "es", "ed", "d", "ing", "ies", "ied"))


@dataclass(frozen=True)
class Head:
    """The head's lines: what the definition says (comment above, docstring summary) and
    its signature."""

    said: tuple[str, ...]
    signature: tuple[str, ...]

    def said_words(self, name: str) -> frozenset[str]:
        """Lower-cased code words of the definition's ``name`` and of what it says."""
        return _words(" ".join((name, *self.said)))

    def signature_words(self) -> frozenset[str]:
        return _words(" ".join(self.signature))


@lru_cache(maxsize=8192)
def glued_words(name: str) -> frozenset[str]:
    """The words glued into ``name``'s lower-case words that it does not also write apart
    (``Moment.fromtimestamp``: ``timestamp``; none for ``command`` or ``float_timestamp``)."""
    named = name_words(name)
    return frozenset(part for word in named for part in glued_parts(word)) - named


@lru_cache(maxsize=8192)
def name_words(name: str) -> frozenset[str]:
    """The lower-case words ``name`` writes apart (``Moment.fromtimestamp``: ``moment``,
    ``fromtimestamp``)."""
    return _words(name)


def _words(text: str) -> frozenset[str]:
    return frozenset(code_words(text).lower().split())


def head(lines: Sequence[str], line: int, end_line: int) -> Head:
    """The head of the definition on ``line``..``end_line`` (numbered from 1) of ``lines``."""
    first, last = line - 1, min(end_line, len(lines)) - 1
    if not 0 <= first <= last:
        return Head((), ())
    said: list[str] = []
    above = first - 1
    while above >= 0 and first - above <= COMMENT_LINES \
            and lines[above].lstrip().startswith(_COMMENTS):
        said.insert(0, lines[above])
        above -= 1
    signature: list[str] = []
    cursor = first
    while cursor <= last and cursor - first < SIGNATURE_LINES:
        text = lines[cursor]
        signature.append(text)
        cursor += 1
        code = text.split("#", 1)[0].rstrip()
        if code.endswith((":", "{")) or "=>" in code:
            break
    while cursor <= last and not lines[cursor].strip():
        cursor += 1
    opening = lines[cursor].lstrip().lstrip(_STRING_PREFIXES) if cursor <= last else ""
    if opening.startswith(_QUOTES):
        quote = opening[:3]
        for number in range(cursor, min(last + 1, cursor + SUMMARY_LINES)):
            text = lines[number]
            if number > cursor and not text.strip():
                break
            said.append(text)
            if text.count(quote) >= (2 if number == cursor else 1):
                break
    return Head(tuple(said), tuple(signature))


def same_word(word: str, other: str) -> bool:
    """``word`` and ``other`` (lower-cased) are forms of one word: they share a start of
    three letters or more and differ by the endings of ``_FORM_ENDINGS`` (a consonant
    doubled before one counts as the start: ``formatting``)."""
    if word == other:
        return True
    if word[:3] != other[:3]:  # most pairs: told apart without the longer comparison
        return False
    start = commonprefix([word, other])
    if len(start) < 3:
        return False
    rests = [form[len(start):] for form in (word, other)]
    rests = [rest[1:] if rest[:1] == start[-1] and rest[1:] in _FORM_ENDINGS else rest
             for rest in rests]
    return all(rest in _FORM_ENDINGS for rest in rests)


def holds(words: Iterable[str], spellings: Iterable[str]) -> bool:
    """Any of ``words`` is a form of any of ``spellings`` (forms share their first three
    letters: only those pairs are compared)."""
    by_start: dict[str, list[str]] = {}
    for spelling in spellings:
        by_start.setdefault(spelling[:3], []).append(spelling)
    return any(same_word(word, spelling) for word in words
               for spelling in by_start.get(word[:3], ()))


class GroupSpellings:
    """Several groups of spellings, each asked as :func:`holds` asks one, all at once: the
    words of a set are looked at once for every group (a search asks the same groups of
    every candidate's words)."""

    def __init__(self, groups: Sequence[Iterable[str]]) -> None:
        self.by_start: dict[str, list[tuple[int, str]]] = {}
        for index, spellings in enumerate(groups):
            for spelling in spellings:
                self.by_start.setdefault(spelling[:3], []).append((index, spelling))

    def held(self, words: Iterable[str]) -> set[int]:
        """The indexes of the groups of which ``words`` holds a form of a spelling."""
        found: set[int] = set()
        by_start = self.by_start
        for word in words:
            for index, spelling in by_start.get(word[:3], ()):
                if index not in found and same_word(word, spelling):
                    found.add(index)
        return found

    def held_words(self, words: Iterable[str]) -> dict[str, set[int]]:
        """Of ``words``, those that are a form of a spelling, each with :meth:`held` of it
        alone: what any set of them holds is then found by intersecting."""
        out: dict[str, set[int]] = {}
        by_start = self.by_start
        for word in words:
            spellings = by_start.get(word[:3])
            if spellings:
                found = {index for index, spelling in spellings if same_word(word, spelling)}
                if found:
                    out[word] = found
        return out
