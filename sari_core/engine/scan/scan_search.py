"""Search answered from a scan of the workspace while the first index is being built.

The same calls, the same ranking rules as :mod:`sari_core.engine.search.search` as far as a
scan allows (definitions are recognised by their line, not by parsed symbols), and one
sentence saying the index is still being built, so the agent knows the answer is a
scan's. A scan never answers "no matches" for what is on disk.
"""

from __future__ import annotations

import heapq
import json
import re

from sari_core.engine.index.names import matches as name_matches
from sari_core.engine.index.names import rank as name_rank
from sari_core.engine.scan.scan import ScannedFile, WorkspaceScan, definition_on, symbol_pattern
from sari_core.engine.scan.scan_words import scan_words
from sari_core.engine.search import work_budget
from sari_core.engine.search.hit_ranking import (
    NAME_RANK_SCORES,
    SCAN_FILES_MIN,
    SCAN_FILES_PER_RESULT,
    Hit,
    file_order,
    is_test,
    is_third_party,
    query_names,
    score_hits,
    stub_penalty,
    symbol_name,
)
from sari_core.engine.search.search import Searcher
from sari_core.engine.search.text_match import FileHit, fold_query, fold_text, glob_spec
from sari_core.engine.search.word_search import is_prose
from sari_core.models import SearchCall, SearchResult

BUILDING_NOTE = ("The index is still being built: these matches come from a scan of the "
                 "workspace, ranked without parsed symbols.")
SCANNED_KINDS = frozenset({"text", "regex", "symbol", "path"})


def scan_search(searcher: Searcher, scan: WorkspaceScan, call: SearchCall, *,
                index_ready: bool = False, notes: list[str] | None = None) -> SearchResult:
    """Answer ``call`` (text, regex, symbol or path) from ``scan`` (by default: while the
    first index builds, saying so), within the work budget."""
    words_note = None
    with work_budget.bounded() as budget:
        hits, total = _hits(searcher, scan, call)
        if not hits and _by_words(call):
            hits, total = scan_words(scan, call)
            if hits:
                words_note = (f"No file contains {json.dumps(call.query.strip())} as written; "
                              "these are the lines holding the most of its words.")
    partial = budget.note()
    notes = [BUILDING_NOTE] if notes is None else list(notes)
    if words_note:
        notes.append(words_note)
    matches, cut = searcher.matches(hits, call.limit)
    return SearchResult(query=call.query, kind=call.kind, matches=matches, total=total,
                        truncated=cut or partial is not None or len(hits) > len(matches)
                        or total > len(matches),
                        index_ready=index_ready, notes=[*notes, *([partial] if partial else [])],
                        extra={"total_unit": "definitions" if call.kind == "symbol"
                               else "files", "source": "scan"})


def _hits(searcher: Searcher, scan: WorkspaceScan, call: SearchCall) -> tuple[list[Hit], int]:
    if call.kind == "path":
        rows = [FileHit(-number, root, rel) for number, (root, rel) in
                enumerate(scan.files(), 1)]
        hits, total = searcher.path_hits(call, rows)
    elif call.kind == "symbol":
        hits, total = _symbols(scan, call)
    else:
        if call.kind == "regex":
            searcher.compile_regex(call)  # a bad pattern is the same structured error as indexed
        hits, total = _text(searcher, scan, call)
    return hits, total


def _by_words(call: SearchCall) -> bool:
    """Whether a text call that found no literal may be answered by its words: a client's
    call with no kind (an explicit ``kind: text`` is the literal, and an exact spelling
    asked for is that spelling)."""
    return call.kind == "text" and not call.literal and not call.case_sensitive


def _definitions(item: ScannedFile, names: set[str]) -> dict[int, tuple[str, int]]:
    """{line: (name, line)} of the lines that define a name of the query (none in prose:
    a changelog or a guide quoting ``def name`` defines nothing, the index parses no
    symbols there either)."""
    out: dict[int, tuple[str, int]] = {}
    if is_prose(item.rel):
        return out
    for number, line in item.lines:
        found = definition_on(line)
        if found is not None and found[0].lower() in names:
            out[number] = (found[0], number)
    return out


def _text(searcher: Searcher, scan: WorkspaceScan, call: SearchCall) -> tuple[list[Hit], int]:
    found = scan.lines(call.query, regex=call.kind == "regex",
                       case_sensitive=call.case_sensitive, glob=call.path_glob)
    names = {name.lower() for name in query_names(call.query)}
    needle = call.query if call.case_sensitive else call.query.lower()
    entries = []
    for number, item in enumerate(found, 1):
        hit = FileHit(-number, item.root, item.rel)
        defs = _definitions(item, names)
        entries.append((file_order(hit, bool(defs), needle, call.case_sensitive), hit, item,
                        defs))
    chosen = heapq.nsmallest(max(SCAN_FILES_MIN, SCAN_FILES_PER_RESULT * call.limit), entries,
                             key=lambda entry: entry[0])
    rx = searcher.compile_regex(call) if call.kind == "regex" else None
    hits: list[Hit] = []
    for _, hit, item, defs in chosen:
        lines = []
        for number, line in item.lines:
            if rx is not None:
                match = rx.search(line)
                column = match.start() if match else 0
            elif call.case_sensitive:
                column = max(line.find(call.query), 0)
            else:
                column = max(fold_text(line, call.query.isascii()).find(
                    fold_query(call.query)), 0)
            lines.append((number, column, line))
        hits.extend(score_hits(hit, lines, defs, needle, call))
    return hits, len(found)


def _symbols(scan: WorkspaceScan, call: SearchCall) -> tuple[list[Hit], int]:
    name = symbol_name(call.query)
    if not name:
        return [], 0
    mode = call.match or "prefix"
    found = scan.lines(symbol_pattern(name, mode), regex=True, case_sensitive=False,
                       glob=call.path_glob)
    hits: list[Hit] = []
    for number, item in enumerate(found, 1):
        if is_prose(item.rel):
            continue
        hit = FileHit(-number, item.root, item.rel)
        for line_number, line in item.lines:
            definition = definition_on(line)
            if definition is None:
                continue
            symbol, kind = definition
            if not name_matches(name, symbol, mode) or \
                    (call.case_sensitive and name not in symbol):
                continue
            score = NAME_RANK_SCORES[name_rank(name, symbol)]
            score += 0.5 if kind in ("class", "function", "interface") else 0.0
            score -= (0.5 if is_test(item.rel) else 0.0) \
                + (0.75 if is_third_party(item.rel) else 0.0) + stub_penalty(item.rel)
            column = re.search(re.escape(symbol), line)
            hits.append(Hit(hit, line_number, line, round(score, 2), kind, symbol,
                             column.start() if column else 0, line_number))
    if call.path_glob:
        spec = glob_spec(call.path_glob)
        hits = [hit for hit in hits if spec.match_file(hit.file.path)]
    return hits, len(hits)
