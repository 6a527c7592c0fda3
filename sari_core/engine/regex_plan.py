"""Which indexed files a regex can match at all: an FTS5 query from its required literals.

As Google Code Search and Zoekt do, the literal runs every match must contain become
a trigram query: all the runs of three characters or more a branch requires (AND), and
for an alternation at the top level each branch's runs (OR). The candidates it selects
are a superset of the files that match (the trigram index is case-folded); RE2 then
checks each candidate. A pattern with a branch that requires no such run cannot be
narrowed: ``None``, and the caller scans (with ripgrep when it can).

Conservative: inline flags and numeric escapes give ``None``; what sits under an
optional quantifier or inside a group is not required.
"""

from __future__ import annotations

from sari_core.engine import work_budget
from sari_core.engine.regex import Regex
from sari_core.engine.store import IndexStore
from sari_core.engine.text_match import (
    FileHit,
    _class_end,
    glob_filter,
    phrase,
    required_runs,
)


def _branches(pattern: str) -> list[str]:
    """``pattern`` split at its top-level ``|`` (not inside a group, a class or an escape)."""
    parts: list[str] = []
    depth = start = i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = _class_end(pattern, i)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def candidate_query(pattern: str) -> str | None:
    """The FTS5 query selecting the files ``pattern`` may match, or None (scan them all)."""
    clauses: list[str] = []
    for branch in _branches(pattern):
        runs = required_runs(branch)
        if not runs:
            return None
        clauses.append("(" + " AND ".join(phrase(run) for run in dict.fromkeys(runs)) + ")")
    return " OR ".join(clauses)


def regex_files(store: IndexStore, rx: Regex, *, glob: str | None = None) -> list[FileHit]:
    """Every indexed text file with a line matching ``rx`` (sorted by root, path)."""
    query = candidate_query(rx.pattern)
    if query is None:
        rows = glob_filter((FileHit(row.id, row.root, row.path)
                            for row in store.text_files()), glob)
    else:
        rows = glob_filter((FileHit(r[0], r[1], r[2]) for r in store.match(query)), glob)
    by_id = {hit.id: hit for hit in rows}
    out = [by_id[file_id] for file_id, data in work_budget.within(store.utf8_texts(list(by_id)))
           if rx.lines(data, limit=1)]
    return sorted(out, key=lambda hit: (hit.root, hit.path))
