"""Search: text, regex, symbol and path queries, ranked, with bounded previews.

Ranking of text and regex hits (documented in docs/engine.md):

* the exact file set comes from :mod:`sari_core.engine.text_match`; ``total``
  counts matching files;
* files that *define* a symbol named in the query come first, then files whose
  path contains the query, then the rest (the project's own before installed
  third-party code, non-test before test paths, shorter paths first); the first
  ``max(20, 2 * limit)`` of them are read for line hits;
* each line hit scores 1, +3 when the line is a definition of a symbol named in
  the query (+0.5 more when it is not indented: a module's own API rather than one
  of many methods of that name), +2 when the query occurs there as a whole word,
  +0.5 when its case matches exactly, +0.5 when the path contains the query, -0.5
  for test paths and for third-party paths (``site-packages/``, ``node_modules/``,
  ``vendor/``, ...), and -0.25 for declaration files (``.pyi``, ``.d.ts``);
* hits are ordered by score, then path, then line; at most ``HITS_PER_FILE`` per file.

Symbol search without ``match`` takes the names that are or start with the query; the
names that only contain or resemble it come only when there is none, with a note.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sari_core.engine import hit_context, work_budget
from sari_core.engine.names import MatchMode, folded, like_pattern
from sari_core.engine.names import matches as name_matches
from sari_core.engine.names import rank as name_rank
from sari_core.engine.paths import PathGuard
from sari_core.engine.regex import Regex, compile_query
from sari_core.engine.regex_plan import regex_files
from sari_core.engine.store import IndexStore, SymbolHit
from sari_core.engine.text_match import (
    FileHit,
    fold_query,
    fold_text,
    glob_spec,
    literal_files,
    regex_lines,
)
from sari_core.models import SearchCall, SearchMatch, SearchResult

SCAN_FILES_MIN = 20  # files read for line hits: at least this many,
SCAN_FILES_PER_RESULT = 2  # or this many per requested match
MAX_DEFINITIONS = 2000  # definitions of the query's names looked at for ranking
HITS_PER_FILE = 5
SNIPPET_CHARS = 200
PREVIEW_BUDGET_CHARS = 6000
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_CHAR = re.compile(r"\w")
# Installed or vendored code: searchable, but ranked after the project's own files.
_THIRD_PARTY_PATH = re.compile(
    r"(^|/)(site-packages|dist-packages|node_modules|vendor|third_party|_vendor)(/|$)")
_STUB_SUFFIXES = (".pyi", ".d.ts", ".d.mts", ".d.cts")
STUB_PENALTY = 0.25
_TEST_PATH = re.compile(r"(^|/)(tests?|testing|__tests__|spec)(/|$)|(^|/)test_[^/]*$|_test\.")
# Symbol search: the same spelling, the same name (another case or style), a prefix, other.
_NAME_RANK_SCORES = (4.0, 3.5, 2.0, 1.0)
# Words of a query that never name the symbol being looked for.
_KEYWORDS = frozenset({
    "def", "class", "return", "import", "from", "self", "cls", "async", "await", "function",
    "const", "let", "var", "new", "public", "private", "protected", "static", "void", "int",
    "func", "fn", "struct", "impl", "pub", "use", "package", "interface", "type", "enum", "if",
    "else", "for", "while", "in", "is", "not", "and", "or", "None", "True", "False", "null",
    "this"})


@dataclass
class _Hit:
    file: FileHit
    line: int
    text: str
    score: float
    kind: str
    symbol: str | None = None
    start: int = 0  # offset of the match inside the line
    end_line: int | None = None


def _is_test(path: str) -> bool:
    return "test" in path and bool(_TEST_PATH.search(path))


def _is_third_party(path: str) -> bool:
    return bool(_THIRD_PARTY_PATH.search(path))


def _stub_penalty(path: str) -> float:
    """A declaration file (a type stub) ranks after the code it declares: the agent that
    searched for a definition wants its body, not its signature again."""
    return STUB_PENALTY if path.endswith(_STUB_SUFFIXES) else 0.0


def _symbol_name(query: str) -> str:
    """The name a symbol query asks for: ``def fields`` and ``class Parser:`` name ``fields``
    and ``Parser``; a dotted or ``::`` path names its last part."""
    words = [word for word in query.replace("(", " ").replace(":", " ").split()
             if word not in _KEYWORDS] if " " in query.strip() else [query.strip()]
    name = words[-1] if words else ""
    return name.rsplit(".", 1)[-1].rsplit("::", 1)[-1]


def file_order(hit: FileHit, defines: bool, needle: str, case_sensitive: bool
               ) -> tuple[int, int, int, int, int, str]:
    """Which matching files are read for line hits first: those defining a name of the
    query, those whose path contains it, own code before third-party, non-test before
    test, shallow before deep."""
    in_path = needle in (hit.path if case_sensitive else hit.path.lower())
    return (0 if defines else 1, 0 if in_path else 1, int(_is_third_party(hit.path)),
            int(_is_test(hit.path)), hit.path.count("/"), hit.path)


def _snippet(line: str, start: int, width: int = SNIPPET_CHARS) -> str:
    line = line.rstrip("\r\n")
    stripped = line.lstrip()
    start -= len(line) - len(stripped)
    if len(stripped) <= width:
        return stripped.rstrip()
    begin = max(0, min(start - width // 3, len(stripped) - width))
    piece = stripped[begin:begin + width]
    return ("…" if begin else "") + piece + ("…" if begin + width < len(stripped) else "")


class Searcher:
    """Answers :class:`SearchCall` from the index."""

    def __init__(self, store: IndexStore, guard: PathGuard) -> None:
        self.store = store
        self.guard = guard

    def search(self, call: SearchCall, *, index_ready: bool = True,
               files: list[FileHit] | None = None) -> SearchResult:
        """:param files: the matching files when found elsewhere (a regex ripgrep ran)."""
        notes: list[str] = []
        with work_budget.bounded() as budget:
            if call.kind == "symbol":
                hits, total, notes = self._symbols(call)
            elif call.kind == "path":
                hits, total = self._paths(call)
            elif call.kind == "text" and not call.literal:  # no kind given: understood
                from sari_core.engine.default_search import answer

                hits, total, notes = answer(self, call)
            else:
                hits, total = self._text(call, files)
        partial = budget.note()
        if partial is not None:
            notes = [*notes, partial]
        matches, cut = self._matches(hits, call.limit, ordered=not call.literal)
        if call.kind in ("text", "regex"):  # each hit names the definition it is in
            hit_context.name_scopes(self.store, hits[:len(matches)] if not call.literal
                                    else self._ordered(hits)[:len(matches)], matches,
                                    show=not call.literal)
        return SearchResult(query=call.query, kind=call.kind, matches=matches, total=total,
                            truncated=cut or partial is not None or len(hits) > len(matches)
                            or total > len(matches),
                            index_ready=index_ready, notes=notes,
                            extra={"total_unit": "definitions" if call.kind == "symbol"
                                   else "files"})

    # --- the exact file sets --------------------------------------------------------

    def files(self, call: SearchCall) -> list[FileHit]:
        """Every file matching a text or regex query (the set ``total`` counts)."""
        if call.kind == "regex":
            return regex_files(self.store, self._compile(call), glob=call.path_glob)
        return literal_files(self.store, call.query, case_sensitive=call.case_sensitive,
                             glob=call.path_glob)

    @staticmethod
    def _compile(call: SearchCall) -> Regex:
        return compile_query(call.query, case_sensitive=call.case_sensitive)

    # --- text and regex -------------------------------------------------------------

    def _text(self, call: SearchCall, files: list[FileHit] | None = None
              ) -> tuple[list[_Hit], int]:
        files = self.files(call) if files is None else files
        if not files:
            return [], 0
        words = self._query_names(call.query)
        defs = self._definitions(words, call.case_sensitive, {f.id for f in files})
        needle = call.query if call.case_sensitive else call.query.lower()
        scan_files = max(SCAN_FILES_MIN, SCAN_FILES_PER_RESULT * call.limit)

        def order(hit: FileHit) -> tuple[int, int, int, int, int, str]:
            return file_order(hit, hit.id in defs, needle, call.case_sensitive)

        chosen = files if len(files) <= scan_files else heapq.nsmallest(scan_files, files,
                                                                         key=order)
        by_id = {hit.id: hit for hit in chosen}
        rx = self._compile(call) if call.kind == "regex" else None
        hits: list[_Hit] = []
        for file_id, text in self.store.texts(list(by_id)):
            # past the budget, the first matching file's lines still come: a file list
            # without a single line would cost the client another call
            if not work_budget.spend(len(text)) and hits:
                break
            file = by_id[file_id]
            found = self._regex_hits(rx, text) if rx is not None else \
                self._literal_hits(call.query, text, call.case_sensitive)
            hits.extend(self._score(file, found, defs.get(file_id, {}), needle, call))
        return hits, len(files)

    @staticmethod
    def _literal_hits(query: str, text: str, case_sensitive: bool) -> list[tuple[int, int, str]]:
        """(line number, column, line text) of the first occurrences of ``query``."""
        # Folding keeps every character's offset, so positions in the folded text are valid.
        haystack = text if case_sensitive else fold_text(text, query.isascii())
        needle = query if case_sensitive else fold_query(query)
        out: list[tuple[int, int, str]] = []
        position = haystack.find(needle)
        line_number, counted_to = 1, 0
        while position != -1 and len(out) < HITS_PER_FILE * 4:
            line_number += text.count("\n", counted_to, position)
            counted_to = position
            line_start = text.rfind("\n", 0, position) + 1
            line_end = text.find("\n", position)
            line_end = len(text) if line_end == -1 else line_end
            out.append((line_number, position - line_start, text[line_start:line_end]))
            position = haystack.find(needle, line_end)  # one hit per line
        return out

    @staticmethod
    def _regex_hits(rx: Regex, text: str) -> list[tuple[int, int, str]]:
        lines = text.split("\n")
        out = []
        for number in regex_lines(rx, text, limit=HITS_PER_FILE * 4):
            found = rx.search(lines[number - 1])
            out.append((number, found.start() if found else 0, lines[number - 1]))
        return out

    def _score(self, file: FileHit, found: Sequence[tuple[int, int, str]],
               defs: dict[int, tuple[str, int]], needle: str, call: SearchCall) -> list[_Hit]:
        test_penalty = (0.5 if _is_test(file.path) else 0.0) \
            + (0.5 if _is_third_party(file.path) else 0.0) + _stub_penalty(file.path)
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
            hits.append(_Hit(file, line_number, line, round(score, 2), kind, symbol, column,
                             end_line))
        hits.sort(key=lambda hit: (-hit.score, hit.line))
        return hits[:HITS_PER_FILE]

    @staticmethod
    def _query_names(query: str) -> list[str]:
        names = {word for word in _WORD.findall(query) if len(word) > 1
                 and word.lower() not in _KEYWORDS}
        return sorted(names)[:8]

    def _definitions(self, names: Sequence[str], case_sensitive: bool, file_ids: set[int]
                     ) -> dict[int, dict[int, tuple[str, int]]]:
        """file id -> {definition line: (name, end line)} for definitions named in the query."""
        if not names:
            return {}
        wanted = set(names)
        out: dict[int, dict[int, tuple[str, int]]] = {}
        for file_id, name, line, end_line in self.store.definitions_named(names, MAX_DEFINITIONS):
            if file_id in file_ids and (not case_sensitive or name in wanted):
                out.setdefault(file_id, {})[line] = (name, end_line)
        return out

    # --- symbols --------------------------------------------------------------------

    def _symbols(self, call: SearchCall) -> tuple[list[_Hit], int, list[str]]:
        """Definitions by name. Without ``match``: the names that are or start with the
        query (as ``grep 'def NAME'`` shows them); only when there is none, the names that
        contain or resemble it, and a note saying so."""
        name = _symbol_name(call.query)
        if not name:
            return [], 0, []
        rows = self._definitions_matching(name, call.match or "prefix", call)
        notes: list[str] = []
        if call.match is None and not rows:
            rows = self._definitions_matching(name, "fuzzy", call)
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
            value = _NAME_RANK_SCORES[rank]
            value += 0.5 if row.kind in ("class", "function", "method", "interface") else 0.0
            # own code, then tests, then installed code (as text search orders files)
            if row.path not in path_penalty:
                path_penalty[row.path] = (0.5 if _is_test(row.path) else 0.0) \
                    + (0.75 if _is_third_party(row.path) else 0.0) + _stub_penalty(row.path)
            return value - path_penalty[row.path]

        scores = {id(row): score(row) for row in rows}
        ranked = sorted(rows, key=lambda row: (-scores[id(row)], row.root, row.path, row.line))
        top = ranked[:max(call.limit * 2, call.limit)]
        texts = dict(self.store.texts(sorted({row.file_id for row in top})))
        split: dict[int, list[str]] = {}
        hits = []
        for row in top:
            if row.file_id not in split:
                split[row.file_id] = texts.get(row.file_id, "").split("\n")
            lines = split[row.file_id]
            line = lines[row.line - 1] if 0 < row.line <= len(lines) else ""
            hits.append(_Hit(FileHit(row.file_id, row.root, row.path), row.line, line,
                             round(scores[id(row)], 2), row.kind, row.name,
                             max(line.find(row.name), 0), row.end_line))
        return hits, len(ranked), notes

    def _definitions_matching(self, name: str, mode: MatchMode, call: SearchCall
                              ) -> list[SymbolHit]:
        """Definitions whose name matches ``name`` under ``mode`` (see engine.names); fuzzy
        also takes every name containing ``name`` as typed."""
        wanted = folded(name)
        if mode == "fuzzy" or not wanted:
            rows = self.store.symbols("s.is_def = 1 AND s.name LIKE ? ESCAPE '\\'",
                                      (like_pattern(name, mode),), limit=5000)
        elif mode == "exact":  # one lookup in the folded-name index
            rows = self.store.symbols("s.folded = ? AND s.is_def = 1", (wanted,), limit=5000)
        else:  # a prefix is a range of the folded-name index (folded names are ASCII)
            rows = self.store.symbols("s.folded >= ? AND s.folded < ? AND s.is_def = 1",
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

    # --- paths ----------------------------------------------------------------------

    def _paths(self, call: SearchCall, rows: Iterable[FileHit] | None = None
               ) -> tuple[list[_Hit], int]:
        query = call.query.strip()
        if rows is None:
            rows = [FileHit(row.id, row.root, row.path) for row in self.store.all_files().values()]
        is_glob = any(char in query for char in "*?[")
        spec = glob_spec(query) if is_glob else None
        needle = query if call.case_sensitive else query.lower()
        scoped = glob_spec(call.path_glob) if call.path_glob else None
        hits = []
        for row in rows:
            if not work_budget.spend():
                break
            if scoped is not None and not scoped.match_file(row.path):
                continue
            path = row.path if call.case_sensitive else row.path.lower()
            base = path.rsplit("/", 1)[-1]
            if spec is not None:
                if not spec.match_file(row.path):
                    continue
                score = 2.0
            elif base == needle:
                score = 3.0
            elif base.split(".", 1)[0] == needle:
                score = 2.5 + (0.2 if row.path.rsplit("/", 1)[-1].startswith(query) else 0.0)
            elif needle in base:
                score = 2.0
            elif needle in path:
                score = 1.0
            else:
                continue
            score -= 0.5 if _is_test(row.path) else 0.0
            hits.append(_Hit(FileHit(row.id, row.root, row.path), 0, row.path,
                             round(score - min(row.path.count("/"), 9) * 0.01, 2), "path"))
        hits.sort(key=lambda hit: (-hit.score, hit.file.root, hit.file.path))
        return hits, len(hits)

    # --- output ---------------------------------------------------------------------

    @staticmethod
    def _ordered(hits: list[_Hit]) -> list[_Hit]:
        return sorted(hits, key=lambda hit: (-hit.score, hit.file.root, hit.file.path, hit.line))

    def _matches(self, hits: list[_Hit], limit: int, ordered: bool = False
                 ) -> tuple[list[SearchMatch], bool]:
        ordered_hits = (hits if ordered else self._ordered(hits))[:limit]
        budget = PREVIEW_BUDGET_CHARS
        width = min(SNIPPET_CHARS, max(40, budget // max(len(ordered_hits), 1)))
        cut = False
        matches = []
        for hit in ordered_hits:
            if hit.kind == "path":
                snippet = ""
            else:
                snippet = _snippet(hit.text, hit.start, width)
                cut = cut or len(snippet) < len(hit.text.strip())
            budget -= len(snippet)
            matches.append(SearchMatch(
                path=self.guard.display(hit.file.root, hit.file.path),
                line=hit.line or None, end_line=hit.end_line or (hit.line or None),
                kind=hit.kind, snippet=snippet, score=hit.score, symbol=hit.symbol))
        return matches, cut
