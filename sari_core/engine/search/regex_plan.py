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

import re

from sari_core.engine.index.store import IndexStore
from sari_core.engine.search import work_budget
from sari_core.engine.search.regex import Regex
from sari_core.engine.search.text_match import TRIGRAM, FileHit, glob_filter, phrase

_SPECIAL = set(".^$*+?{}[]\\|()")
_ESCAPED_LITERALS = set(".^$*+?{}[]\\|()-/#&~\"'=:<>,;@%!` ")
_NUMERIC_ESCAPES = set("xuUN0123456789")
_BRACES = re.compile(r"\{\d*(?:,\d*)?\}")


def _class_end(pattern: str, start: int) -> int:
    """Index just past the ``]`` closing the character class opened at ``start``."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "]":
            return i + 1
        i += 1
    return len(pattern)


def _quantifier(pattern: str, i: int) -> tuple[str, int]:
    """The quantifier at ``i`` ("" if none) and its length (a lazy/possessive suffix included)."""
    if i >= len(pattern):
        return "", 0
    char = pattern[i]
    length = 0
    if char in "?*+":
        length = 1
    elif char == "{":
        found = _BRACES.match(pattern, i)
        if found is None:
            return "", 0
        length = found.end() - i
    if length and i + length < len(pattern) and pattern[i + length] in "?+":
        length += 1
    return (pattern[i:i + length], length) if length else ("", 0)


def required_runs(branch: str) -> list[str] | None:
    """The literal runs (three characters or more) every match of ``branch`` contains;
    None when the branch cannot be analysed (inline flags, numeric escapes)."""
    if "(?" in branch.replace("(?:", ""):
        return None
    runs: list[str] = []
    current: list[str] = []
    i = depth = 0
    while i < len(branch):
        char = branch[i]
        literal: str | None = None
        if char == "\\":
            nxt = branch[i + 1] if i + 1 < len(branch) else ""
            if nxt in _NUMERIC_ESCAPES:
                return None
            literal = nxt if nxt in _ESCAPED_LITERALS else None
            i += 2
        elif char == "[":
            i = _class_end(branch, i)
        else:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(0, depth - 1)
            elif char not in _SPECIAL:
                literal = char
            i += 1
        quantifier, length = _quantifier(branch, i)
        i += length
        optional = quantifier[:1] in ("?", "*") or quantifier.startswith(("{0,", "{0}", "{,"))
        if literal is not None and not depth and not optional:
            current.append(literal)
        if (literal is None or depth or quantifier) and current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return [run for run in runs if len(run) >= TRIGRAM and "\x00" not in run]


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
