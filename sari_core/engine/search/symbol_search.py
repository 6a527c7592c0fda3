"""Symbol search from the index: definitions by name, ranked.

Without ``match`` it takes the names that are or start with the query (as ``grep 'def
NAME'`` shows them); the names that only contain or resemble it come only when there is
none, with a note. Exact and prefix names are ranges of the folded-name index.
"""

from __future__ import annotations

import json

from sari_core.engine.index.names import MatchMode, folded, like_pattern, words
from sari_core.engine.index.names import matches as name_matches
from sari_core.engine.index.names import rank as name_rank
from sari_core.engine.index.store import IndexStore, SymbolHit
from sari_core.engine.search.hit_ranking import (
    NAME_RANK_SCORES,
    Hit,
    is_test,
    is_third_party,
    stub_penalty,
    symbol_name,
)
from sari_core.engine.search.text_match import TRIGRAM, FileHit, glob_spec, phrase
from sari_core.models import SearchCall


def symbol_hits(store: IndexStore, call: SearchCall) -> tuple[list[Hit], int, list[str]]:
    """Definitions by name. Without ``match``: the names that are or start with the
    query (as ``grep 'def NAME'`` shows them); only when there is none, the names that
    contain or resemble it, and a note saying so."""
    name = symbol_name(call.query)
    if not name:
        return [], 0, []
    rows = definitions_matching(store, name, call.match or "prefix", call)
    notes: list[str] = []
    if call.match is None and not rows:
        rows = definitions_matching(store, name, "fuzzy", call)
        if rows:
            notes.append(f"Nothing is named or starts with {name}; these names resemble it.")

    wanted = folded(name)
    path_penalty: dict[str, float] = {}

    def score(row: SymbolHit) -> float:
        # rank from the stored folded name: same spelling, same name, prefix, other
        rank = 0 if row.name == name else 1 if row.folded == wanted else \
            2 if row.folded.startswith(wanted) else 3
        if not row.folded:  # a row without its folded name: fold it here
            rank = name_rank(name, row.name)
        value = NAME_RANK_SCORES[rank]
        value += 0.5 if row.kind in ("class", "function", "method", "interface") else 0.0
        # own code, then tests, then installed code (as text search orders files)
        if row.path not in path_penalty:
            path_penalty[row.path] = (0.5 if is_test(row.path) else 0.0) \
                + (0.75 if is_third_party(row.path) else 0.0) + stub_penalty(row.path)
        return value - path_penalty[row.path]

    scores = {id(row): score(row) for row in rows}
    ranked = sorted(rows, key=lambda row: (-scores[id(row)], row.root, row.path, row.line))
    top = ranked[:max(call.limit * 2, call.limit)]
    # each file is read up to its last line shown, and split no further
    last_line: dict[int, int] = {}
    for row in top:
        last_line[row.file_id] = max(last_line.get(row.file_id, 0), row.line)
    lines = store.first_lines(last_line)
    hits = []
    for row in top:
        shown = lines.get(row.file_id, [])
        line = shown[row.line - 1].decode("utf-8") if 0 < row.line <= len(shown) else ""
        hits.append(Hit(FileHit(row.file_id, row.root, row.path), row.line, line,
                         round(scores[id(row)], 2), row.kind, row.name,
                         max(line.find(row.name), 0), row.end_line))
    return hits, len(ranked), notes

# Beyond this many candidate files, reading every definition's name costs less than
# looking each file's definitions up.
MAX_CANDIDATE_FILES = 2000


def files_holding(store: IndexStore, name: str) -> list[int] | None:
    """The files whose text holds the first word of ``name`` (any case), from the trigram
    index: a fuzzy match's name contains that word, and a definition's name is in its file's
    text. None when the index cannot narrow the search (a word shorter than a trigram, not
    ASCII, or common to many files): the caller reads every definition's name instead. A
    name nothing defines is then answered without reading any."""
    parts = words(name)
    first = parts[0] if parts else ""
    if len(first) < TRIGRAM or not first.isascii():
        return None
    query = phrase(first.lower())
    if store.count_match(query) > MAX_CANDIDATE_FILES:
        return None
    return [file_id for file_id, _, _, _ in store.match(query)]


def definitions_matching(store: IndexStore, name: str, mode: MatchMode, call: SearchCall
                         ) -> list[SymbolHit]:
    """Definitions whose name matches ``name`` under ``mode`` (see engine.index.names); fuzzy
    also takes every name containing ``name`` as typed."""
    wanted = folded(name)
    if mode == "fuzzy" or not wanted:
        files = files_holding(store, name)
        if files is None:
            rows = store.symbols("s.is_def = 1 AND s.name LIKE ? ESCAPE '\\'",
                                 (like_pattern(name, mode),), limit=5000)
        else:
            rows = store.symbols("s.file_id IN (SELECT value FROM json_each(?)) AND "
                                 "s.is_def = 1 AND s.name LIKE ? ESCAPE '\\'",
                                 (json.dumps(files), like_pattern(name, mode)), limit=5000)
    elif mode == "exact":  # one lookup in the folded-name index
        rows = store.symbols("s.folded = ? AND s.is_def = 1", (wanted,), limit=5000)
    else:  # a prefix is a range of the folded-name index (folded names are ASCII)
        rows = store.symbols("s.folded >= ? AND s.folded < ? AND s.is_def = 1",
                                  (wanted, wanted + "\x7f"), limit=5000)
    lowered = name.lower()
    if mode == "fuzzy" or not wanted:  # exact and prefix: the index range is the match
        rows = [row for row in rows if name_matches(name, row.name, mode)
                or (mode == "fuzzy" and lowered in row.name.lower())]
    if call.case_sensitive:
        rows = [row for row in rows if name in row.name]
    if call.path_glob:
        spec = glob_spec(call.path_glob)
        rows = [row for row in rows if spec.match_file(row.path)]
    return rows
