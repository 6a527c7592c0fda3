"""Which regex searches ripgrep answers instead of the index, and rg's answer as index hits.

A regex the index cannot narrow (no literal, no small character sets in a row it requires)
goes to ripgrep over every text file the index holds, which scans faster than reading every
indexed text (both are linear-time engines). One the index narrows has its candidate files
picked by the trigram index, and rg reads just those: the time of a regex search is in
matching the candidates' text, and rg reads a file from the page cache and matches it
faster than the index can decompress it and hand it to RE2 from Python. Without rg (or for
a pattern rg cannot take exactly) the index checks the candidates itself.

Either way rg's answer is matched against the index's text files as one table (paths, ids,
sizes), read once per index version: a broad pattern lists thousands of files, and a
look-up and an ignore check per file added a third to the call. A broad pattern is one rg
walk of the tree (which follows no link); candidates are given to rg by path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from sari_core.engine.index.index_memo import memo_for, remembered
from sari_core.engine.index.store import IndexStore
from sari_core.engine.scan.scan import TextFiles, WorkspaceScan, ripgrep
from sari_core.engine.search import work_budget
from sari_core.engine.search.regex_plan import candidate_query
from sari_core.engine.search.search import Searcher
from sari_core.engine.search.text_match import FileHit, glob_spec
from sari_core.models import SearchCall


def goes_to_ripgrep(searcher: Searcher, call: SearchCall) -> bool:
    """Whether ripgrep finds the files of ``call`` (a regex with no literal it requires).

    A pattern the index would refuse is refused here, with the index's own error.
    """
    if call.kind != "regex" or ripgrep() is None or "\x00" in call.query:
        return False
    searcher.compile_regex(call)
    return candidate_query(call.query) is None


def ripgrep_files(scan: WorkspaceScan, store: IndexStore, call: SearchCall
                  ) -> list[FileHit] | None:
    """The indexed files rg finds matching a regex call (None: rg cannot say)."""
    return scan.indexed_matches(call.query, _text_files(store, scan.roots),
                                case_sensitive=call.case_sensitive, glob=call.path_glob)


def _text_files(store: IndexStore, roots: Sequence[str]) -> TextFiles:
    """The index's text files, which rg reads and its paths are checked against (thousands
    at a time): read once per index version, not looked up path by path."""
    def read() -> TextFiles:
        prefixes = [root.rstrip(os.sep) + os.sep for root in roots]
        rows = [(int(file_id), int(root), str(path), int(size)) for file_id, root, path, size
                in store.reader.execute("SELECT id, root, path, size FROM files WHERE "
                                        "kind = 'text' ORDER BY root, path")  # (as str sorts)
                if root < len(prefixes)]
        files = [FileHit(file_id, root, path) for file_id, root, path, _ in rows]
        paths = [prefixes[hit.root] + hit.path.replace("/", os.sep) for hit in files]
        return TextFiles(files, paths, {path: number for number, path in enumerate(paths)},
                         {hit.id: number for number, hit in enumerate(files)},
                         [row[3] for row in rows])
    return remembered(memo_for(store, store.reader), "text files", tuple(roots), read, 1)


def ripgrep_among_candidates(scan: WorkspaceScan, store: IndexStore, call: SearchCall
                             ) -> list[FileHit] | None:
    """The files matching a regex call the trigram index narrows: its candidates, checked by
    rg (None: rg cannot say, the index checks them instead)."""
    if call.kind != "regex" or ripgrep() is None:
        return None
    query = candidate_query(call.query)
    if query is None:
        return None
    indexed = _text_files(store, scan.roots)
    spec = glob_spec(call.path_glob) if call.path_glob else None
    candidates = [number for number in map(indexed.number.get, store.match_ids(query))
                  if number is not None and (spec is None
                                             or spec.match_file(indexed.files[number].path))]
    if not candidates:
        return []
    return scan.indexed_matches(call.query, indexed, case_sensitive=call.case_sensitive,
                                among=_funded(indexed, candidates))


def _funded(indexed: TextFiles, candidates: list[int]) -> list[int]:
    """The candidates the search's work budget pays for, in order: rg reading a file is
    scanning it, so each is counted as the index's own check would count it (its size as
    indexed), and a search past its budget answers with what it found in those (the budget
    says so)."""
    for place, number in enumerate(candidates):
        if not work_budget.spend(indexed.sizes[number]):
            return candidates[:place]
    return candidates
