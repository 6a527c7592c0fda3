"""Search by words: the chunks of the word index ranked for a query in words.

Ranking (documented in docs/engine.md):

* candidates: the chunks holding any of the query's words or their spellings in code, read
  as :mod:`sari_core.engine.search.query_words` says (filler left out; ``environment``: ``env``;
  ``look up``: ``lookup``; ``command line interface``: ``cli``), the best ``CANDIDATES``
  by BM25 over three columns weighted ``name`` 4, ``body`` 1, ``path`` 1.5 (see
  :mod:`sari_core.engine.index.word_index`);
* each candidate's BM25 score is then multiplied by:

  - ``(L / A) ** LENGTH_PRIOR`` where ``L`` is the chunk's length and ``A`` the candidates'
    average: BM25 divides by a chunk's length more than suits code, where the function
    that does the work is long and a constant naming the concept is one line (pivoted
    length normalisation);
  - ``1 + COVERAGE * c`` where ``c`` is the share of the query's words the chunk holds
    (all of "redirects followed" beats many mentions of one of them);
  - ``1 + NAME_WORD * n`` where ``n`` is the share of the query's words in the
    definition's own name (a definition named for the concept before a mention of it),
    a word glued into it counting ``GLUED`` (``fromtimestamp``: ``timestamp``; see
    :mod:`sari_core.engine.search.glued_names`; the index's name column holds it whole);
  - ``DEFINITION`` for a definition's chunk (code, not prose or module-level lines);
  - ``1 + HEAD * h`` for the best ``HEAD_RANKED`` definitions, where ``h`` is the share of
    the query's words in the definition's head (its name, docstring summary and the
    comment above it whole, the words glued into its name ``GLUED``, its signature
    ``SIGNATURE``; not a constant's, whose head is
    its name: :mod:`sari_core.engine.search.definition_heads`): a definition that says it does
    what was asked before one whose body merely uses the words (not when the query asks
    for docs: they are prose, without heads);
  - ``PROSE`` for docs, changelogs and package metadata, and for everything else instead
    when the query asks for docs ("changelog", "readme", "docs", ...); a query that does
    not ask for docs gets them after every code hit, whatever their score; ``TEST`` for test
    files unless it asks for tests; ``EXAMPLE`` for examples, demos and benchmarks unless it
    asks for docs or examples; ``THIRD_PARTY`` for installed code;
  - ``OPPOSITE`` for a definition whose name goes the other way from the query's words
    (a writer or dumper when the query reads or loads; see
    :mod:`sari_core.engine.search.directions`);
  - ``ERROR_CLASS`` for an exception class (a class named ``...Error``, ``...Exception``,
    ``...Warning``) when the query speaks of no error (``_ERROR_WORDS``): its docstring
    says in a few words when it is raised, so it holds the words of the operation that
    fails, and it is what is asked only about the failure;
  - ``1 + SEMANTIC * s`` for the best ``SEMANTIC_RANKED`` definitions after heads, ``s``
    their closeness in meaning to the query, when the ``semantic`` extra is installed
    (not when the query asks for docs; see :mod:`sari_core.engine.search.semantic_rank`);

* a constructor (``__init__``, ``__new__``) is multiplied by ``CONSTRUCTOR`` unless the
  query asks to create (``_CREATE_WORDS``), its file's chunks then ordered again in the
  places the file had (the words' scores place the files, below): a constructor stores its
  arguments under the names the whole class uses, so it holds the words of what its
  methods do without doing it;
* a class's best member goes just above the class when it holds at least ``MEMBER_SHARE``
  of the query's words the class holds (the class's chunk is its members' text too),
  unless the class's name holds more of them and at least ``MEMBER_NAMED``; each file's
  chunks move only among the places the file had;
* files are placed by their best chunk's score plus ``FILE_EVIDENCE`` of their second
  best's, that share again of the third's, over the ``PER_FILE`` chunks a file shows, the
  scores as the words gave them (before meaning, which moves no file): a file that
  answers the query in several places (the function and the helpers around it) is surer
  than one whose single chunk happens to hold the words. Each chunk keeps its score and
  each file its own order; only the files' places among each other move;
* a special method (``__str__``, ``__init__``) is named for the protocol it implements,
  not for what it does: its name counts for nothing (neither in BM25 nor as a name word);
* hits are ordered by that score; at most ``PER_FILE`` chunks of one file are kept. Path
  depth plays no part.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

from sari_core.engine.index.index_memo import file_lines, memo_for, remembered, remembered_many
from sari_core.engine.index.store import IndexStore
from sari_core.engine.search.definition_heads import (
    GroupSpellings,
    glued_words,
    head,
    name_words,
)
from sari_core.engine.search.directions import direction, opposite
from sari_core.engine.search.hit_ranking import is_test, within_file_places
from sari_core.engine.search.query_words import (
    TermGroup,
    query_terms,
    stem,
    term_groups,
    word_groups,
)
from sari_core.engine.search.semantic_rank import by_meaning

__all__ = ["WordHit", "is_prose", "is_test", "query_terms", "search_words", "stem",
           "term_groups"]

CANDIDATES = 200
PER_FILE = 4
WEIGHTS = (4.0, 1.0, 1.5)  # BM25 weights of the name, body and path columns
LENGTH_PRIOR = 0.15
COVERAGE = 1.5
NAME_WORD = 1.0
DEFINITION = 1.3
PROSE = 0.3
TEST = 0.3
EXAMPLE = 0.5
THIRD_PARTY = 0.6
OPPOSITE = 0.5  # a definition going the other way from the query's (dumping for loading)
ERROR_CLASS = 0.5  # an exception class, when the query speaks of no error
CONSTRUCTOR = 0.5  # a constructor among its file's chunks, when the query asks to create none
HEAD = 3.0
SIGNATURE = 0.5  # a word only in the signature counts for this much of one in what it says
GLUED = 0.75  # and one glued into the name (``timestamp`` of ``fromtimestamp``)
HEAD_RANKED = 40
MEMBER_SHARE = 0.5  # a member holding this share of the words its class holds goes above it
MEMBER_NAMED = 0.5  # but not above a class whose name holds more, and this share, of them
FILE_EVIDENCE = 0.25  # a file's next best chunk adds this share of its score to the file's best
# Kept between searches until the index changes (engine.index.index_memo), per reader thread:
# which chunks hold a query word's spellings (HELD_ROWS chunk ids in all the sets
# together, about 20 MB at most), chunks' lengths and rows.
HELD_ROWS = 400_000
HELD_LENGTHS = 100_000
HELD_CHUNKS = 100_000  # chunks' rows: where each is, its file's path
HELD_HEADS = 50_000  # definitions' head words (two small sets each)
# Words that ask for documentation. Words code uses as often (a version's release segment,
# a licence expression, a file that changes, an object's history) ask for it only in a pair
# that names a document (release notes).
_DOC_WORDS = frozenset(("doc", "docs", "documentation", "documented", "readme", "changelog",
                        "example", "examples", "tutorial", "guide", "manual"))
_DOC_PAIRS = frozenset((("release", "notes"), ("change", "log")))
_TEST_WORDS = frozenset(("test", "tests", "testing", "fixture", "fixtures", "pytest"))
# Words that speak of an error: an exception class may be what such a query asks for.
_ERROR_WORDS = frozenset(("error", "errors", "exception", "exceptions", "raise", "raises",
                          "raised", "warning", "warnings", "fail", "fails", "failure",
                          "invalid", "throw", "thrown"))
_ERROR_CLASS = re.compile(r"(Error|Exception|Warning)$")
# Words that ask to create: a constructor may be what such a query asks for.
_CREATE_WORDS = frozenset(("create", "creates", "creating", "construct", "constructs",
                           "constructing", "constructor", "init", "initialize", "initialise",
                           "initialization", "new", "instance", "instantiate", "setup"))
_CONSTRUCTOR = re.compile(r"(^|\.)__(init|new)__$")
_PROSE_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".org", ".html", ".htm", ".ipynb", ".tex")
_PROSE_NAMES = re.compile(
    r"(^|/)(changelog|changes|history|news|authors|contributors|license|copying|notice|"
    r"pkg-info|readme|sources\.txt|release[-_]?notes)[^/]*$", re.IGNORECASE)
# Code beside the project's own: examples, samples, demos, benchmarks.
_EXAMPLES = re.compile(r"(^|/)(examples?|samples?|demos?|benchmarks?|bench)/", re.IGNORECASE)
_DOCS_FOLDER = re.compile(r"(^|/)(docs?|documentation|man|site)/", re.IGNORECASE)
_THIRD_PARTY = re.compile(
    r"(^|/)(site-packages|dist-packages|node_modules|vendor|third_party|_vendor)(/|$)")
_NOT_DEFINITIONS = frozenset(("text",))
_HEADLESS = frozenset(("constant",))  # a line naming a value: its head is its name
_SPECIAL_NAME = re.compile(r"(^|\.)__\w+__$")
_ORDER = itemgetter(0, 1, 2)  # best score first, then path and line
# A definition's head words: what it says, the words glued into its name, its signature's.
_HeadWords = tuple[frozenset[str], frozenset[str], frozenset[str]]
_NO_HEAD: _HeadWords = (frozenset(), frozenset(), frozenset())
# What ``memo_for`` returns: the values kept for one reader, checked current once a search.
Memo = Any


@dataclass(frozen=True)
class WordHit:
    file_id: int
    root: int
    path: str
    line: int
    end_line: int
    scope: str
    kind: str
    score: float


def asks_for_docs(terms: Sequence[str]) -> bool:
    """Whether the query's words ask for documentation rather than code."""
    return any(term in _DOC_WORDS for term in terms) \
        or any(pair in _DOC_PAIRS for pair in zip(terms, terms[1:], strict=False))


@lru_cache(maxsize=4096)
def is_prose(path: str) -> bool:
    lowered = path.lower()
    return lowered.endswith(_PROSE_SUFFIXES) or bool(_PROSE_NAMES.search(path)) \
        or bool(_DOCS_FOLDER.search(path))


def _shares(holders: Sequence[set[int]], groups: Sequence[TermGroup], count: int
            ) -> dict[int, float]:
    """Per chunk, the share of the ``count`` query words it holds (``holders[i]``: the chunks
    holding ``groups[i]``); a glued pair or an acronym found counts for each of its words."""
    found: dict[int, int] = {}
    for rows, group in zip(holders, groups, strict=True):
        weight = group.words
        for rowid in rows:
            found[rowid] = found.get(rowid, 0) + weight
    return {rowid: min(1.0, number / count) for rowid, number in found.items()} if count else {}


def _holders(store: IndexStore, memo: Memo, groups: Sequence[TermGroup], candidates: set[int],
             column: str = "") -> list[set[int]]:
    """Per group, the candidates holding one of its spellings (in ``column`` if named)."""
    out = []
    for group in groups:
        expression = group.expression()
        # A group that names its own columns (an acronym: a definition's name or its file's)
        # counts there as the name.
        if column and not group.columns:
            expression = f"{column} : ({expression})"
        out.append(candidates & _held(store, expression, memo))
    return out


def _held(store: IndexStore, expression: str, memo: Memo) -> frozenset[int]:
    """:func:`_holding`, kept until the index changes."""
    return remembered(memo, "holders", expression,
                      lambda: _holding(store, expression), HELD_ROWS, len)


def _holding(store: IndexStore, expression: str) -> frozenset[int]:
    """Every chunk the word index matches ``expression`` in."""
    return frozenset(row[0] for row in store.reader.execute(
        "SELECT rowid FROM words WHERE words MATCH ?", (expression,)))


@lru_cache(maxsize=8192)
def _place(path: str, asks_docs: bool, asks_tests: bool) -> float:
    """What a chunk's file makes of its score: prose, tests, examples, installed code."""
    factor = 1.0
    if asks_docs != is_prose(path):
        factor *= PROSE
    if not asks_tests and is_test(path):
        factor *= TEST
    if not asks_docs and _EXAMPLES.search(path):
        factor *= EXAMPLE
    if _THIRD_PARTY.search(path):
        factor *= THIRD_PARTY
    return factor


def _extensions(store: IndexStore, memo: Memo) -> frozenset[str]:
    """The workspace's file extensions, lower-cased (kept until the index changes)."""
    return remembered(memo, "extensions", None,
                      lambda: frozenset(path.rsplit(".", 1)[1].lower() for (path,) in
                                        store.reader.execute("SELECT path FROM files")
                                        if "." in path.rsplit("/", 1)[-1]), 1)


def _chunk_rows(store: IndexStore, memo: Memo, rowids: list[int]) -> dict[int, tuple]:
    """Each chunk's ``(file_id, root, path, line, end_line, scope, kind)`` (none for a
    chunk without its row), kept until the index changes."""
    return _per_chunk(store, memo, "chunk rows", rowids, _read_chunks, HELD_CHUNKS)


def _read_chunks(store: IndexStore, rowids: list[int]) -> dict[int, tuple]:
    marks = ",".join("?" * len(rowids))
    return {row[0]: row[1:] for row in store.reader.execute(
        "SELECT c.id, c.file_id, f.root, f.path, c.line, c.end_line, c.scope, c.kind"
        f" FROM word_chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
        rowids)}


def _body_lengths(store: IndexStore, memo: Memo, rowids: list[int]) -> dict[int, int]:
    """Each chunk's count of body words, as BM25 counts them: FTS5 keeps one varint per
    column in its ``docsize`` table (none without it: the length then plays no part)."""
    return _per_chunk(store, memo, "body length", rowids, _read_lengths, HELD_LENGTHS)


def _per_chunk(store: IndexStore, memo: Memo, kind: str, rowids: list[int], read, held: int
               ) -> dict:
    """``read(store, rowids)`` per chunk id, kept until the index changes (``held`` at most)."""
    if not rowids:
        return {}
    return remembered_many(memo, kind, rowids,
                           lambda missing: read(store, missing), held)


def _read_lengths(store: IndexStore, rowids: list[int]) -> dict[int, int]:
    marks = ",".join("?" * len(rowids))
    try:
        rows = store.reader.execute(
            f"SELECT id, sz FROM words_docsize WHERE id IN ({marks})", rowids).fetchall()
    except sqlite3.OperationalError:
        return {}
    lengths = {}
    for rowid, size in rows:
        columns = _varints(bytes(size or b""))
        lengths[int(rowid)] = max(1, columns[1] if len(columns) > 1 else 1)
    return lengths


def _varints(blob: bytes) -> list[int]:
    """SQLite's variable-length integers, in order (seven bits a byte, big end first)."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def search_words(store: IndexStore, query: str, limit: int, glob_match=None
                 ) -> tuple[list[WordHit], int]:
    """The best chunks for ``query`` (at most ``limit``) and how many files hold its words."""
    terms = query_terms(query)
    if not terms:
        return [], 0
    # The index's version is checked once: every value kept below is of the index read.
    memo = memo_for(store, store.reader)
    groups = word_groups(terms, _extensions(store, memo))
    # A group no chunk holds (most glued pairs and initials) is left out of the query: it
    # matches nothing and adds nothing to any chunk's BM25, but FTS5 would score every
    # matching chunk against it.
    expression = " OR ".join(f"({group.expression()})" for group in groups
                             if _held(store, group.expression(), memo))
    if not expression:
        return [], 0
    # The best CANDIDATES are chosen inside FTS5, then their chunk rows looked up (kept
    # between searches: the same chunks come back query after query).
    best: list[tuple[int, float]] = store.reader.execute(
        f"SELECT rowid, bm25(words, {WEIGHTS[0]}, {WEIGHTS[1]}, {WEIGHTS[2]}) AS rank"
        " FROM words WHERE words MATCH ? ORDER BY rank LIMIT ?",
        (expression, CANDIDATES)).fetchall()
    chunks = _chunk_rows(store, memo, [row[0] for row in best])
    candidates = {rowid for rowid, _ in best if rowid in chunks}
    name_holders = _holders(store, memo, groups, candidates, "name")
    without_name = _unnamed(store, expression, best, chunks, name_holders)
    rows = [(rowid, *chunks[rowid], without_name.get(rowid, rank), rank) for rowid, rank in best
            if rowid in chunks]
    asks_docs = asks_for_docs(terms)
    asks_tests = any(term in _TEST_WORDS for term in terms)
    asked_way = direction(terms)
    asks_error = any(term in _ERROR_WORDS for term in terms)
    # The groups a definition's name and head are read for (an acronym's: names only),
    # looked up in each set of words at once.
    wanted = [group for group in groups if not group.columns]
    spellings = GroupSpellings([group.spellings for group in wanted])
    glued_shares: dict[str, float] = {}

    def glued_share(scope: str) -> float:
        share = glued_shares.get(scope)
        if share is None:
            share = glued_shares[scope] = _glued_name_share(
                scope.rsplit(".", 1)[-1], wanted, spellings, len(terms))
        return share

    covered = _shares(_holders(store, memo, groups, candidates), groups, len(terms))
    in_name = _shares(name_holders, groups, len(terms))
    files: set[int] = set()
    lengths = _body_lengths(store, memo, [row[0] for row in rows])
    average = sum(lengths.values()) / len(lengths) if lengths else 1.0
    scored = []
    for row in rows:
        rowid, file_id, _, path, line, _, scope, kind, unnamed, rank = row
        if glob_match is not None and not glob_match(path):
            continue
        files.add(file_id)
        special = "__" in scope and _SPECIAL_NAME.search(scope) is not None
        score = -float(unnamed if special else rank)
        score *= math.pow(lengths.get(rowid, average) / average, LENGTH_PRIOR)
        score *= 1 + COVERAGE * covered.get(rowid, 0.0)
        if not special:
            named = in_name.get(rowid, 0.0)  # a share: at most 1, as the glued one
            score *= 1 + NAME_WORD * (named if named >= 1.0 else max(named, glued_share(scope)))
        if kind not in _NOT_DEFINITIONS:
            score *= DEFINITION
        score *= _place(path, asks_docs, asks_tests)
        if opposite(asked_way, scope, path):
            score *= OPPOSITE
        if kind == "class" and not asks_error and _ERROR_CLASS.search(scope):
            score *= ERROR_CLASS
        scored.append((-score, path, line, row))
    scored.sort(key=_ORDER)  # stable: rows of one score, path and line stay in rank order
    if not asks_docs:  # docs are asked for: what a definition says of itself does not count
        scored = _by_heads(store, memo, scored, wanted, spellings, len(terms), asks_tests)
        # Files are placed by the words' scores: meaning orders a file's own chunks only.
        worded = {entry[3][0]: -entry[0] for entry in scored}
        if not any(term in _CREATE_WORDS for term in terms):
            scored = _constructors_later(scored)
        scored = by_meaning(store, query, scored, _ORDER, memo)
        scored = _members_first(scored, covered, lambda row: max(
            in_name.get(row[0], 0.0), glued_share(row[6])))
        scored = _files_by_evidence(scored, worded)
        # A question about code is answered by code: prose, however many of the words it
        # holds, comes after every code hit (stable: each part keeps its order).
        scored.sort(key=lambda entry: is_prose(entry[1]))
    kept: list[WordHit] = []
    per_file: dict[int, int] = {}
    for negated, _, _, row in scored:
        file_id = row[1]
        if per_file.get(file_id, 0) < PER_FILE:
            per_file[file_id] = per_file.get(file_id, 0) + 1
            kept.append(WordHit(file_id, row[2], row[3], row[4], row[5], row[6], row[7],
                                -negated))
            if len(kept) >= limit:
                break
    return kept, len(files)


def _unnamed(store: IndexStore, expression: str, best: list[tuple[int, float]],
             chunks: dict[int, tuple], name_holders: Sequence[set[int]]) -> dict[int, float]:
    """The BM25 score without the name column of the special methods among ``best`` whose
    name holds a query word (their name counts for nothing). Only these are scored again:
    without a word in its name, a chunk's score with the name column weighted 0 is its
    rank exactly (FTS5 adds each instance's column weight; the name column has none)."""
    named = set().union(*name_holders)
    wanted = [rowid for rowid, _ in best if rowid in named and _SPECIAL_NAME.search(
        chunks[rowid][5])]
    if not wanted:
        return {}
    # A range of rowids is one pass of FTS5 (a list of them would be one query each).
    found = store.reader.execute(
        f"SELECT rowid, bm25(words, 0, {WEIGHTS[1]}, {WEIGHTS[2]}) FROM words"
        " WHERE words MATCH ? AND rowid BETWEEN ? AND ?",
        (expression, min(wanted), max(wanted))).fetchall()
    kept = set(wanted)
    return {rowid: score for rowid, score in found if rowid in kept}


def _constructors_later(scored: list[tuple[float, str, int, tuple]]
                        ) -> list[tuple[float, str, int, tuple]]:
    """``scored`` with each constructor's score multiplied by ``CONSTRUCTOR`` and the
    chunks of its file ordered again in the places the file had (no file moves)."""
    changed: set[str] = set()
    out = list(scored)
    for place, entry in enumerate(scored):
        scope = entry[3][6]
        if "__" in scope and _CONSTRUCTOR.search(scope):  # most scopes: no regex asked
            out[place] = (entry[0] * CONSTRUCTOR, *entry[1:])
            changed.add(entry[1])
    if not changed:
        return scored
    return within_file_places(out, changed, _ORDER)


def _members_first(scored: list[tuple[float, str, int, tuple]], covered: dict[int, float],
                   named: Callable[[tuple], float]) -> list[tuple[float, str, int, tuple]]:
    """``scored`` with a class's best member moved just above the class, in the places its
    file's chunks had, when the member holds at least ``MEMBER_SHARE`` of the query's words
    the class holds, unless the class's name holds more of them than the member's and at
    least ``MEMBER_NAMED`` (``named``: a chunk row's share of the query's words in its
    name): the class's chunk is its members' text too, so it holds every member's words,
    and the member that holds them is the narrower answer; a class named for the query is
    what was asked. Files keep their places."""
    classes: dict[str, list[tuple]] = {}
    for entry in scored:
        if entry[3][7] == "class":
            classes.setdefault(entry[1], []).append(entry[3])
    if not classes:
        return scored
    best_member: dict[int, tuple] = {}
    for entry in scored:  # best first: a class's first member found is its best
        boxes = classes.get(entry[1])
        if not boxes:
            continue
        row = entry[3]
        # A special method's name is the protocol's: the words it holds there are no match.
        if row[7] in _NOT_DEFINITIONS or _SPECIAL_NAME.search(row[6]):
            continue
        for box in boxes:
            if box[0] != row[0] and box[4] <= row[4] and row[5] <= box[5] \
                    and box[0] not in best_member:
                best_member[box[0]] = row
    if not best_member:
        return scored
    place: dict[int, float] = {id(entry): index for index, entry in enumerate(scored)}
    row_place = {entry[3][0]: index for index, entry in enumerate(scored)}
    moved: set[str] = set()  # the files a member moved in
    for entry in scored:
        box = entry[3]
        member = best_member.get(box[0])
        if member is None or row_place[member[0]] < row_place[box[0]] \
                or covered.get(member[0], 0.0) < MEMBER_SHARE * covered.get(box[0], 0.0) \
                or named(box) > max(named(member), MEMBER_NAMED):
            continue
        # Just above the class (and above a member already moved there).
        member_entry = scored[row_place[member[0]]]
        place[id(member_entry)] = min(place[id(entry)], place[id(member_entry)]) - 0.5
        moved.add(entry[1])
    if not moved:
        return scored
    # Only the files a member moved in are ordered again (the others' are in order).
    return within_file_places(scored, moved, lambda entry: place[id(entry)])


def _files_by_evidence(scored: list[tuple[float, str, int, tuple]], worded: dict[int, float]
                       ) -> list[tuple[float, str, int, tuple]]:
    """``scored`` (best first) with the files placed again: a file's first chunk is placed
    by the file's best score plus ``FILE_EVIDENCE`` of its second best, ``FILE_EVIDENCE``
    squared of its third, over the first ``PER_FILE`` chunks of the file (those it can
    show): the more places of a file answer the query, the surer the file is. The scores
    are the words' (``worded``, per chunk id: before meaning, which moves no file); every
    chunk keeps its score, and each file's chunks their order, in the places the file now
    has."""
    # One pass: each chunk's words' score, each file's chunks and its first chunk's place.
    get = worded.get
    keys: list[float] = []
    own: dict[str, list[tuple]] = {}
    scores: dict[str, list[float]] = {}
    first: dict[str, int] = {}
    for index, entry in enumerate(scored):
        path = entry[1]
        score = get(entry[3][0], -entry[0])
        keys.append(-score)
        entries = own.get(path)
        if entries is None:
            own[path] = [entry]
            scores[path] = [score]
            first[path] = index
        else:
            entries.append(entry)
            mine = scores[path]
            if len(mine) < PER_FILE:
                mine.append(score)
    for path, mine in scores.items():
        keys[first[path]] = -sum(FILE_EVIDENCE ** place * score
                                 for place, score in enumerate(sorted(mine, reverse=True)))
    placed = sorted(zip(keys, (entry[1] for entry in scored), (entry[2] for entry in scored),
                        range(len(scored)), strict=True))
    taken = {path: iter(entries) for path, entries in own.items()}
    return [next(taken[path]) for _, path, _, _ in placed]


def _glued_name_share(own: str, wanted: Sequence[TermGroup], spellings: GroupSpellings,
                      count: int) -> float:
    """The share of the query's words in a definition's name ``own`` (its last part) with
    the words glued into it counting ``GLUED`` each (``fromtimestamp`` holds ``timestamp``;
    the index's name column holds it whole); none for a name without glued words.
    ``wanted``: the query's groups matched anywhere, ``spellings`` theirs."""
    parts = glued_words(own)
    if not parts or not count:
        return 0.0
    named, glued = spellings.held(name_words(own)), spellings.held(parts)
    held = sum(group.words * (1.0 if index in named else GLUED if index in glued else 0.0)
               for index, group in enumerate(wanted))
    return min(1.0, held / count)


def _by_heads(store: IndexStore, memo: Memo, scored: list[tuple[float, str, int, tuple]],
              wanted: Sequence[TermGroup], spellings: GroupSpellings, count: int,
              asks_tests: bool) -> list[tuple[float, str, int, tuple]]:
    """``scored`` with the best ``HEAD_RANKED`` definitions' scores multiplied by
    ``1 + HEAD * h``, ``h`` the share of the query's words in the definition's head
    (:mod:`sari_core.engine.search.definition_heads`): its name and what it says count whole, a
    word glued into its name ``GLUED``, a word only in its signature ``SIGNATURE``. Only
    the best are looked at (their heads are read from their files once per index
    version), and a head at most multiplies a score by ``1 + HEAD``. A constant's head is
    its name, counted already; a test's says what it checks, not what the code it tests
    does (unless tests are asked for), and would undo ``TEST``. ``wanted``: the query's
    groups matched anywhere (an acronym's only in names), ``spellings`` theirs."""
    top = {id(entry) for entry in scored[:HEAD_RANKED]
           if entry[3][7] not in _NOT_DEFINITIONS and entry[3][7] not in _HEADLESS
           and (asks_tests or not is_test(entry[1]))}
    if not top or not count:
        return scored
    rows = {entry[3][0]: entry[3] for entry in scored if id(entry) in top}
    heads = remembered_many(memo, "head words", list(rows),
                            lambda missing: _head_words(store, [rows[i] for i in missing]),
                            HELD_HEADS)
    # The head words that are forms of the query's, each with the groups it holds: looked
    # for once for the words of every head, each head's then found by intersecting.
    every: set[str] = set()
    for words in heads.values():
        every.update(*words)
    held_by = spellings.held_words(every)
    found = frozenset(held_by)

    def groups_in(words: frozenset[str]) -> set[int]:
        out: set[int] = set()
        for word in words & found:
            out |= held_by[word]
        return out

    out = list(scored)
    for place, entry in enumerate(scored[:HEAD_RANKED]):  # every head is of one of them
        said, glued, taken = heads.get(entry[3][0], _NO_HEAD)
        if said or glued or taken:
            in_said, in_glued, in_taken = groups_in(said), groups_in(glued), groups_in(taken)
            # A group a head does not hold adds nothing (nor does a head holding none).
            held = sum(wanted[index].words * max(
                1.0 if index in in_said else 0.0,
                GLUED if index in in_glued else 0.0,
                SIGNATURE if index in in_taken else 0.0)
                for index in sorted(in_said | in_glued | in_taken))
            if held:
                out[place] = (entry[0] * (1 + HEAD * min(1.0, held / count)), *entry[1:])
    out.sort(key=_ORDER)
    return out


def _head_words(store: IndexStore, rows: list[tuple]) -> dict[int, _HeadWords]:
    """Per chunk row, the words of what its definition says (its name too), the words glued
    into its name and not said apart, and those only in its signature, read from its
    file's stored lines."""
    lines_of = file_lines(store, (row[1] for row in rows))
    out = {}
    for row in rows:
        name = row[6].rsplit(".", 1)[-1]
        found = head(lines_of.get(row[1], []), row[4], row[5])
        said = found.said_words(name)
        glued = glued_words(name) - said
        out[row[0]] = (said, glued, found.signature_words() - said - glued)
    return out
