"""Which indexed files a regex can match at all: an FTS5 query from its required literals.

As Google Code Search and Zoekt do, the literal runs every match must contain become
a trigram query: all the runs of three characters or more a branch requires (AND), and
for an alternation at the top level each branch's runs (OR). The candidates it selects
are a superset of the files that match (the trigram index is case-folded); RE2 then
checks each candidate. A branch that requires no such run may require small character
sets in a row (``\\d+\\.\\d+``: a digit, a dot, a digit): the OR of their trigrams selects
its files, when there are few enough of them. A pattern with a branch that requires
neither cannot be narrowed: ``None``, and the caller scans (with ripgrep when it can).

Conservative: inline flags, numeric escapes, Unicode classes (``\\pN``) and quoted text
(``\\Q...\\E``) give ``None``; what sits under an optional quantifier or inside a group is
not required.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sari_core.engine.index.store import IndexStore
from sari_core.engine.search import work_budget
from sari_core.engine.search.regex import Regex
from sari_core.engine.search.text_match import TRIGRAM, FileHit, glob_filter, phrase

_SPECIAL = set(".^$*+?{}[]\\|()")
_ESCAPED_LITERALS = set(".^$*+?{}[]\\|()-/#&~\"'=:<>,;@%!` ")
_NUMERIC_ESCAPES = set("xuUN0123456789")
_BRACES = re.compile(r"\{(\d*)(,\d*)?\}")
# Escapes whose next characters are not themselves: a Unicode class (\pN, \p{Greek}) and
# quoted text (\Q...\E). (A literal backslash before p, P or Q is refused too: harmless.)
_UNREAD_ESCAPES = re.compile(r"\\[pPQ]")
MAX_CLASS_CHARS = 36  # a character class spelled out for the trigram index: [a-z0-9] at most
# Trigrams of three positions in a row, OR-ed, and of all such windows AND-ed (\d-\d: 100).
# A letter on each side of a character (676 for [a-z]_[a-z]) is in most files of code: the
# trigram query would cost more than it leaves out, and rg reads the tree instead.
MAX_WINDOW_GRAMS = 300


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


def _atoms(branch: str) -> Iterator[tuple[str, Any, int, str]]:
    """``branch``'s atoms in order, each ``(kind, value, depth, quantifier)``: an escape
    (its character after the backslash), a class (its ``(start, end)`` in ``branch``) or a
    character (itself; ``""`` for one with a meaning of its own: a group's bracket, ``.``,
    an anchor), with the depth of groups it is in and the quantifier after it."""
    i = depth = 0
    while i < len(branch):
        char = branch[i]
        if char == "\\":
            kind, value = "escape", branch[i + 1:i + 2]
            i += 2
        elif char == "[":
            end = _class_end(branch, i)
            kind, value = "class", (i, end)
            i = end
        else:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(0, depth - 1)
            kind, value = "char", "" if char in _SPECIAL else char
            i += 1
        quantifier, length = _quantifier(branch, i)
        i += length
        yield kind, value, depth, quantifier


def required_runs(branch: str) -> list[str] | None:
    """The literal runs (three characters or more) every match of ``branch`` contains;
    None when the branch cannot be analysed (inline flags, numeric escapes, Unicode classes
    such as ``\\pN`` or ``\\p{Greek}``, text quoted by ``\\Q...\\E``)."""
    if "(?" in branch.replace("(?:", "") or _UNREAD_ESCAPES.search(branch):
        return None
    runs: list[str] = []
    current: list[str] = []
    for kind, value, depth, quantifier in _atoms(branch):
        literal: str | None = None
        if kind == "escape":
            if value in _NUMERIC_ESCAPES:
                return None
            literal = value if value in _ESCAPED_LITERALS else None
        elif kind == "char":
            literal = value or None
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


def _class_chars(pattern: str, start: int, end: int) -> frozenset[str] | None:
    """The characters the class ``pattern[start:end]`` (brackets included) matches, when it
    is a plain list of characters, ranges and ``\\d`` (no negation, no other escape class)
    and small enough to spell out; else None."""
    body = pattern[start + 1:end - 1]
    if not body or body.startswith("^") or "[:" in body:
        return None
    chars: set[str] = set()
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            nxt = body[i + 1:i + 2]
            if nxt == "d":
                chars.update("0123456789")
                i += 2
                continue
            if nxt not in _ESCAPED_LITERALS:
                return None
            char = nxt
            i += 1
        if body[i + 1:i + 2] == "-" and i + 2 < len(body):
            last = body[i + 2]
            if last == "\\":
                return None
            if ord(last) < ord(char) or ord(last) - ord(char) > MAX_CLASS_CHARS:
                return None
            chars.update(chr(code) for code in range(ord(char), ord(last) + 1))
            i += 3
        else:
            chars.add(char)
            i += 1
        if len(chars) > MAX_CLASS_CHARS:
            return None
    return _folded(chars)


def _folded(chars: set[str]) -> frozenset[str] | None:
    """``chars`` (ASCII) as the case-folded trigram index holds them (which folds the long s
    and the Kelvin sign, the two other characters RE2 takes for an ASCII letter, to ``s``
    and ``k``); None for other characters (their folding is left to the literal runs)."""
    if not all(char.isascii() and char != "\x00" for char in chars):
        return None
    return frozenset(char.lower() for char in chars)


def required_classes(branch: str) -> list[list[frozenset[str]]]:
    """Runs of positions every match of ``branch`` spells in a row, each position a small
    set of characters (a literal, ``\\d``, a class such as ``[A-Z]``): ``\\d+\\.\\d+``
    has a digit, a dot, a digit in a row. What sits in a group or under an optional
    quantifier is not required; a repeated position ends a run and starts the next (the
    last repetition touches what follows)."""
    runs: list[list[frozenset[str]]] = []
    current: list[frozenset[str]] = []
    for kind, value, depth, quantifier in _atoms(branch):
        chars: frozenset[str] | None = None
        if kind == "escape":
            chars = frozenset("0123456789") if value == "d" else \
                _folded({value}) if value in _ESCAPED_LITERALS else None
        elif kind == "class":
            chars = _class_chars(branch, *value)
        elif kind == "char" and value:
            chars = _folded({value})
        if chars is None or depth:
            runs.append(current)
            current = []
            continue
        counts = _BRACES.fullmatch(quantifier.rstrip("?")) if quantifier.startswith("{") \
            else None
        least = 1 if quantifier[:1] in ("", "+") else \
            int(counts.group(1) or 0) if counts is not None else 0
        exact = quantifier == "" or (counts is not None and counts.group(2) is None)
        if least == 0:
            runs.append(current)
            current = []
        elif exact and least <= TRIGRAM:
            current.extend([chars] * least)
        else:  # the first repetitions follow what came before, the last precede what follows
            current.extend([chars] * min(least, TRIGRAM))
            runs.append(current)
            current = [chars] * min(least, TRIGRAM - 1)
    runs.append(current)
    return [run for run in runs if len(run) >= TRIGRAM]


def _class_clause(branch: str) -> str | None:
    """An FTS5 query from the trigrams of character sets ``branch`` requires: windows of
    three positions in a row, each the OR of its trigrams, AND-ed, the cheapest first while
    they spell ``MAX_WINDOW_GRAMS`` trigrams at most; None when no window is that small."""
    windows: dict[tuple[frozenset[str], ...], int] = {}
    for run in required_classes(branch):
        for start in range(len(run) - TRIGRAM + 1):
            window = tuple(run[start:start + TRIGRAM])
            size = len(window[0]) * len(window[1]) * len(window[2])
            if size <= MAX_WINDOW_GRAMS:
                windows[window] = size
    chosen: list[tuple[frozenset[str], ...]] = []
    grams = 0
    for window in sorted(windows, key=lambda window: (windows[window], sorted(window[0]),
                                                      sorted(window[1]), sorted(window[2]))):
        if chosen and grams + windows[window] > MAX_WINDOW_GRAMS:
            break
        chosen.append(window)
        grams += windows[window]
    if not chosen:
        return None
    return " AND ".join("(" + " OR ".join(phrase(a + b + c) for a in sorted(window[0])
                                           for b in sorted(window[1])
                                           for c in sorted(window[2])) + ")"
                        for window in chosen)


def candidate_query(pattern: str) -> str | None:
    """The FTS5 query selecting the files ``pattern`` may match, or None (scan them all).

    A branch's literal runs select its files; a branch without one is selected by the
    trigrams of the small character sets it requires in a row, when there are few enough
    of them (``\\d+\\.\\d+``: a digit, a dot, a digit)."""
    clauses: list[str] = []
    for branch in _branches(pattern):
        runs = required_runs(branch)
        if runs is None:
            return None
        if runs:
            clauses.append("(" + " AND ".join(phrase(run) for run in dict.fromkeys(runs)) + ")")
            continue
        sets = _class_clause(branch)
        if sets is None:
            return None
        clauses.append("(" + sets + ")")
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
