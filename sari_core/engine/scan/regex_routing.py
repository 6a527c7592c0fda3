"""Which regex searches ripgrep answers instead of the index, and rg's answer as index hits.

A regex the index cannot narrow (no literal it requires) goes to ripgrep, which scans
faster than reading every indexed text (both are linear-time engines). One with a
required literal stays with the index however common the literal: reading the
candidates' texts and checking them with RE2 beat ``rg -l`` over the tree for candidates
up to 90% of the files (``bench/regex_routing.py``), and counting them first cost as
much as a narrow search.
"""

from __future__ import annotations

from sari_core.engine.index.store import IndexStore
from sari_core.engine.scan.scan import WorkspaceScan, ripgrep
from sari_core.engine.search.regex_plan import candidate_query
from sari_core.engine.search.search import Searcher
from sari_core.engine.search.text_match import FileHit
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
    found = scan.matching_files(call.query, regex=True, case_sensitive=call.case_sensitive,
                                glob=call.path_glob)
    if found is None:
        return None
    ids = store.text_file_ids(found)
    return [FileHit(ids[key], *key) for key in found if key in ids]
