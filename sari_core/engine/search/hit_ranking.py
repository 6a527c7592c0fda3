"""How the files and lines a text search finds rank: the rules the index's search and the
scan before the first index share (documented in docs/engine.md and in engine.search.search)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sari_core.engine.search.text_match import FileHit
from sari_core.models import SearchCall

SCAN_FILES_MIN = 20  # files read for line hits: at least this many,
SCAN_FILES_PER_RESULT = 2  # or this many per requested match
HITS_PER_FILE = 5
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")  # `$` starts and continues JS names
_WORD_CHAR = re.compile(r"\w")
# A name bound by assignment, with its type when annotated: ``name =``, ``name: T =``,
# ``export const name =``; the value follows.
_BINDING = re.compile(r"\s*(?:export\s+)?(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)"
                      r"\s*(?::[^=]*)?=(?!=)(.*)")
# An alias's definition (see binds_itself) scores less by this than one with a body.
ALIAS_PENALTY = 1.0
# Installed or vendored code: searchable, but ranked after the project's own files.
_THIRD_PARTY_PATH = re.compile(
    r"(^|/)(site-packages|dist-packages|node_modules|vendor|third_party|_vendor)(/|$)")
_STUB_SUFFIXES = (".pyi", ".d.ts", ".d.mts", ".d.cts")
STUB_PENALTY = 0.25
# Tests as each language's tools name them: a tests folder, test_x.py, x_test.go, x.test.js,
# x.spec.ts, x_spec.rb (checked lower-cased); XTest.java, XTests.cs, XSpec.scala (by case).
_TEST_PATH = re.compile(r"(^|/)(tests?|testing|__tests__|spec)(/|$)|(^|/)test_[^/]*$|_test\."
                        r"|\.(test|spec)\.[^/]+$|_spec\.[^/]+$")
_TEST_CLASS_FILE = re.compile(r"[a-z0-9](Tests?|Spec)\.[A-Za-z]+$")
# Symbol search: the same spelling, the same name (another case or style), a prefix, other.
NAME_RANK_SCORES = (4.0, 3.5, 2.0, 1.0)
# Words of a query that never name the symbol being looked for.
KEYWORDS = frozenset({
    "def", "class", "return", "import", "from", "self", "cls", "async", "await", "function",
    "const", "let", "var", "new", "public", "private", "protected", "static", "void", "int",
    "func", "fn", "struct", "impl", "pub", "use", "package", "interface", "type", "enum", "if",
    "else", "for", "while", "in", "is", "not", "and", "or", "None", "True", "False", "null",
    "this"})


@dataclass
class Hit:
    """A line (or a path) a search found, with its score and what it is."""

    file: FileHit
    line: int
    text: str
    score: float
    kind: str
    symbol: str | None = None
    start: int = 0  # offset of the match inside the line
    end_line: int | None = None


@lru_cache(maxsize=8192)
def is_test(path: str) -> bool:
    lowered = path.lower()
    return ("test" in lowered or "spec" in lowered) and (
        _TEST_PATH.search(lowered) is not None or _TEST_CLASS_FILE.search(path) is not None)


def is_third_party(path: str) -> bool:
    return bool(_THIRD_PARTY_PATH.search(path))


def stub_penalty(path: str) -> float:
    """A declaration file (a type stub) ranks after the code it declares: the agent that
    searched for a definition wants its body, not its signature again."""
    return STUB_PENALTY if path.endswith(_STUB_SUFFIXES) else 0.0


def symbol_name(query: str) -> str:
    """The name a symbol query asks for: ``def fields`` and ``class Parser:`` name ``fields``
    and ``Parser``; a dotted or ``::`` path names its last part."""
    words = [word for word in query.replace("(", " ").replace(":", " ").split()
             if word not in KEYWORDS] if " " in query.strip() else [query.strip()]
    name = words[-1] if words else ""
    return name.rsplit(".", 1)[-1].rsplit("::", 1)[-1]


def binds_itself(line: str, name: str) -> bool:
    """Whether ``line`` binds ``name`` again from a definition of the same name elsewhere
    (``x = curry(mod.x)``, ``x = mod.x``): an alias or a wrapper, not the body."""
    found = _BINDING.match(line)
    if found is None or found.group(1) != name:
        return False
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", found.group(2)) is not None


def file_order(hit: FileHit, defines: bool, needle: str, case_sensitive: bool
               ) -> tuple[int, int, int, int, int, str]:
    """Which matching files are read for line hits first: those defining a name of the
    query, those whose path contains it, own code before third-party, non-test before
    test, shallow before deep."""
    in_path = needle in (hit.path if case_sensitive else hit.path.lower())
    return (0 if defines else 1, 0 if in_path else 1, int(is_third_party(hit.path)),
            int(is_test(hit.path)), hit.path.count("/"), hit.path)


def query_names(query: str) -> list[str]:
    """The names a text query mentions (keywords left out), at most eight."""
    names = {word for word in _WORD.findall(query) if len(word) > 1
             and word.lower() not in KEYWORDS}
    return sorted(names)[:8]


def score_hits(file: FileHit, found: Sequence[tuple[int, int, str]],
               defs: dict[int, tuple[str, int]], needle: str, call: SearchCall) -> list[Hit]:
    """The line hits of one file scored (see engine.search.search), best first, at most
    ``HITS_PER_FILE``: ``found`` is (line number, column, line text), ``defs`` the lines
    that define a name of the query."""
    test_penalty = (0.5 if is_test(file.path) else 0.0) \
        + (0.5 if is_third_party(file.path) else 0.0) + stub_penalty(file.path)
    in_path = needle in (file.path if call.case_sensitive else file.path.lower())
    hits = []
    for line_number, column, line in found:
        score = 1.0 + (0.5 if in_path else 0.0) - test_penalty
        kind = "text"
        symbol = None
        end_line = None
        if line_number in defs:
            symbol, end_line = defs[line_number]
            score += 3.0 if line[:1].isspace() else 3.5
            # an alias of a definition elsewhere ranks after it, whatever the paths' order
            score -= ALIAS_PENALTY if binds_itself(line, symbol) else 0.0
            kind = "definition"
        if call.kind == "text":
            length = len(call.query)
            before = line[column - 1] if column > 0 else ""
            after = line[column + length] if column + length < len(line) else ""
            word = not (_WORD_CHAR.match(call.query[:1]) and _WORD_CHAR.match(before or " ")) \
                and not (_WORD_CHAR.match(call.query[-1:]) and _WORD_CHAR.match(after or " "))
            score += 2.0 if word else 0.0
            if not call.case_sensitive and line[column:column + length] == call.query:
                score += 0.5
        hits.append(Hit(file, line_number, line, round(score, 2), kind, symbol, column,
                        end_line))
    hits.sort(key=lambda hit: (-hit.score, hit.line))
    return hits[:HITS_PER_FILE]


def within_file_places(scored: Sequence[tuple], paths: set[str] | dict[str, object],
                       key: Callable[[tuple], Any]) -> list[tuple]:
    """``scored`` (entries whose second item is their file's path) with the entries of the
    files ``paths`` sorted by ``key`` among the places those files' entries had: no file
    moves, only a file's own entries change order."""
    mine: dict[str, list[tuple]] = {path: [] for path in paths}
    for entry in scored:
        entries = mine.get(entry[1])
        if entries is not None:
            entries.append(entry)
    for entries in mine.values():
        entries.sort(key=key)
    taken = {path: iter(entries) for path, entries in mine.items()}
    return [next(taken[entry[1]]) if entry[1] in taken else entry for entry in scored]
