"""The default ``search`` (no ``kind``): each kind of query answered its own way.

:func:`sari_core.engine.search.query_kinds.classify` says what the query is:

* a name: its literal hits, definitions first (as ``kind=text`` always ranked them); when
  no hit defines it (a half-remembered name), the definitions named with its words
  (``parse_cookie``: ``cookie_parser``) follow its first mentions, with a note;
* a dotted name (``Session.send``, ``requests.utils.super_len``): the definitions of its
  last part whose class or module path ends with the rest come first (a package's
  ``__init__`` named by the package; the rest also without case or separators, as an
  instance is named for its class: ``websocket.accept``), then the literal;
* code: the literal; a regex-looking query with no literal hit: the regex;
* words: the literal phrase when a file holds it, else the word index's chunks
  (:mod:`sari_core.engine.search.word_search`).

Whatever finds no literal hit is answered by its words, with one note saying so: the
answer is never empty while the query's words are in the workspace (unless the search is
case-sensitive: that asks for the spelling exactly).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from os.path import commonprefix
from typing import TYPE_CHECKING, Any, Protocol

from sari_core.engine.index.index_memo import file_lines, memo_for, remembered
from sari_core.engine.index.names import dotted_parts, folded, folded_name
from sari_core.engine.index.names import words as name_words
from sari_core.engine.index.scope_tree import innermost
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.scopes import definition_trees
from sari_core.engine.search.hit_ranking import Hit
from sari_core.engine.search.query_kinds import classify
from sari_core.engine.search.text_match import FileHit, glob_spec
from sari_core.engine.search.word_search import WordHit, is_test, query_terms, search_words, stem
from sari_core.errors import SariError

if TYPE_CHECKING:
    from sari_core.models import SearchCall

MAX_DOTTED_DEFINITIONS = 500
NAMED_WITH_WORDS = 3
HELD_HIT_CHARS = 4_000_000  # the lines of hits kept between searches, in characters


class TextSearcher(Protocol):
    """What the default search uses of the searcher: the index, and its text hits."""

    store: IndexStore

    def text_hits(self, call: SearchCall) -> tuple[list[Hit], int]: ...


def answer(searcher: TextSearcher, call: SearchCall) -> tuple[list[Hit], int, list[str]]:
    """Hits in the order to show, the count of matching files, and notes."""
    kind = classify(call.query)
    quoted = json.dumps(call.query.strip(), ensure_ascii=False)
    if kind == "dotted":
        resolved = _dotted(searcher, call)
        literal, total = searcher.text_hits(call)
        if resolved or literal:
            return _merge(resolved, _ordered(literal)), total + len(
                {hit.file.id for hit in resolved}), []
    else:
        literal, total = searcher.text_hits(call)
        if literal:  # the exact literal wins: it is what was asked for, as written
            ordered = _ordered(literal)
            if kind != "identifier" or call.case_sensitive \
                    or any(hit.kind == "definition" for hit in literal):
                return ordered, total, []
            # A name only mentioned (a comment, a call of something not here) is often a
            # half-remembered one: the definitions named with its words are shown too.
            named = _named_with_words(searcher, call)
            keep = max(1, call.limit - len(named))
            first = {(hit.file.id, hit.line) for hit in ordered[:keep]}
            named = [hit for hit in named if (hit.file.id, hit.line) not in first]
            if named:
                shown = min(keep, len(ordered))
                mentions = "its mention" if shown == 1 else f"its first {shown} mentions"
                return [*ordered[:keep], *_merge(named, ordered[keep:])], total, [
                    f"Nothing here defines {quoted}; definitions named with its words "
                    f"follow {mentions}."]
            return ordered, total, []
    if kind == "regex":
        regex_hits, total = _as_regex(searcher, call)
        if regex_hits:
            return _ordered(regex_hits), total, [
                f"No file contains {quoted} as written; these lines match it as a regex."]
    if call.case_sensitive:  # exactly this spelling was asked for: no words instead
        return [], 0, []
    words, files = _words(searcher, call)
    if not words:
        return [], 0, []
    what = "its words" if kind == "words" else "the words in it"
    return words, files, [f"No file contains {quoted} as written; "
                          f"these are the best matches of {what}."]


def _ordered(hits: list[Hit]) -> list[Hit]:
    return sorted(hits, key=lambda hit: (-hit.score, hit.file.root, hit.file.path, hit.line))


def _merge(first: list[Hit], then: list[Hit]) -> list[Hit]:
    seen = {(hit.file.id, hit.line) for hit in first}
    return [*first, *(hit for hit in then if (hit.file.id, hit.line) not in seen)]


def _as_regex(searcher: TextSearcher, call: SearchCall) -> tuple[list[Hit], int]:
    try:
        return searcher.text_hits(call.model_copy(update={"kind": "regex"}))
    except SariError:  # not a valid regex after all: answered by its words
        return [], 0


def _words(searcher: TextSearcher, call: SearchCall) -> tuple[list[Hit], int]:
    spec = glob_spec(call.path_glob) if call.path_glob else None
    store = searcher.store
    found, files = search_words(store, call.query, max(call.limit * 2, 20),
                                spec.match_file if spec else None)
    terms = [stem(term) for term in query_terms(call.query)]
    memo = memo_for(store, store.reader)
    read: dict[int, list[str]] = {}  # files read by this call: each split once at most

    def lines_of(file_id: int) -> list[str]:
        lines = read.get(file_id)
        if lines is None:
            lines = read[file_id] = file_lines(store, (file_id,)).get(file_id, [])
        return lines

    hits = []
    for hit in found:
        shown = _shown_lines(memo, hit, lines_of)
        line = hit.line if hit.kind != "text" else _best_line(shown, hit.line, terms)
        text = shown[line - hit.line] if 0 <= line - hit.line < len(shown) else ""
        hits.append(Hit(FileHit(hit.file_id, hit.root, hit.path), line, text,
                         round(hit.score, 2), "definition" if hit.kind != "text" else "text",
                         hit.scope or None, 0, hit.end_line if hit.kind != "text" else line))
    return hits, files


def _shown_lines(memo: Any, hit: WordHit, lines_of: Callable[[int], list[str]]
                 ) -> tuple[str, ...]:
    """The lines a hit may show: a definition's first, a text chunk's all (its best is
    chosen per query), kept until the index changes. A file longer than the index's memo
    keeps is split again on every read, and the same few chunks are hits query after
    query."""
    last = hit.end_line if hit.kind == "text" else hit.line
    return remembered(memo, "hit lines", (hit.file_id, hit.line, last),
                      lambda: tuple(lines_of(hit.file_id)[max(hit.line, 1) - 1:last])
                      if hit.line >= 1 else (), HELD_HIT_CHARS,
                      lambda shown: 1 + sum(len(text) for text in shown))


def _named_with_words(searcher: TextSearcher, call: SearchCall) -> list[Hit]:
    """Definitions whose name holds each word of the identifier ``call`` asks for, in any
    order and form (``parse_cookie``: ``cookie_parser``), at most ``NAMED_WITH_WORDS``;
    not tests (``test_cookie_parsing`` tests the definition, it is not one to use)."""
    wanted = name_words(call.query)
    if len(wanted) < 2:
        return []
    hits, _ = _words(searcher, call)
    named = []
    for hit in hits:
        held = name_words((hit.symbol or "").rsplit(".", 1)[-1])
        if hit.kind == "definition" and not is_test(hit.file.path) and all(
                any(_same_word(word, other) for other in held) for word in wanted):
            named.append(hit)
    return named[:NAMED_WITH_WORDS]


def _same_word(word: str, other: str) -> bool:
    """One word in two forms (``parse``, ``parser``, ``parsed``; ``cookie``, ``cookies``):
    they share all but the last letter of the shorter, and three letters (a shorter word
    whole)."""
    shorter = min(len(word), len(other))
    return len(commonprefix([word, other])) >= max(min(3, shorter), shorter - 1)


def _best_line(shown: Sequence[str], first: int, terms: list[str]) -> int:
    """The line of a chunk holding the most of the query's words (``shown``: its lines,
    the first numbered ``first``)."""
    best, best_count = first, 0
    for offset, text in enumerate(shown):
        lowered = text.lower()
        count = sum(1 for term in terms if term in lowered)
        if count > best_count:
            best, best_count = first + offset, count
    return best


def _dotted(searcher: TextSearcher, call: SearchCall) -> list[Hit]:
    """Definitions of the last part of a dotted name inside the class or module it names."""
    parts = dotted_parts(call.query)
    if len(parts) < 2:
        return []
    rows = searcher.store.symbols("s.is_def = 1 AND s.folded = ? AND s.name = ?",
                                  (folded_name(parts[-1]), parts[-1]),
                                  limit=MAX_DOTTED_DEFINITIONS)
    if call.path_glob:
        spec = glob_spec(call.path_glob)
        rows = [row for row in rows if spec.match_file(row.path)]
    trees = definition_trees(searcher.store, sorted({row.file_id for row in rows}))
    wanted = ".".join(parts)
    # An instance is named for its class (``websocket.accept``: ``WebSocket.accept``): the
    # qualifier also matches without case or separators, after the exact spellings.
    loosely = [folded(part) for part in parts]
    found, loose = [], []
    for row in rows:
        scope = innermost(trees.get(row.file_id, []), row.line)
        qualified = scope.qualified if scope is not None and scope.line == row.line \
            else row.name
        module = row.path.rsplit(".", 1)[0].replace("/", ".")
        # A package's names are defined in its __init__ but named without it: ``pkg.split``.
        names = (f"{module}.{qualified}", f"{module.removesuffix('.__init__')}.{qualified}")
        if any(name == wanted or name.endswith("." + wanted) for name in names):
            found.append(row)
        elif any([folded(part) for part in name.split(".")][-len(parts):] == loosely
                 for name in names):
            loose.append(row)
    found += loose
    texts = dict(searcher.store.texts(sorted({row.file_id for row in found})))
    hits = []
    for row in found:
        lines = texts.get(row.file_id, "").split("\n")
        text = lines[row.line - 1] if 0 < row.line <= len(lines) else ""
        hits.append(Hit(FileHit(row.file_id, row.root, row.path), row.line, text, 10.0,
                         "definition", wanted, max(text.find(row.name), 0), row.end_line))
    return hits
