"""Search: text, regex, symbol and path queries, ranked, with bounded previews.

Ranking of text and regex hits (documented in docs/engine.md):

* the exact file set comes from :mod:`sari_core.engine.search.text_match`; ``total``
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
import json
from collections.abc import Container, Iterable, Sequence
from functools import lru_cache
from itertools import chain
from itertools import count as count_up

from sari_core.engine.files.paths import PathGuard
from sari_core.engine.index.store import IndexStore
from sari_core.engine.search import hit_context, work_budget
from sari_core.engine.search.default_search import answer
from sari_core.engine.search.hit_ranking import (
    HITS_PER_FILE,
    SCAN_FILES_MIN,
    SCAN_FILES_PER_RESULT,
    Hit,
    file_order,
    is_test,
    query_names,
    score_hits,
)
from sari_core.engine.search.regex import Regex, compile_query
from sari_core.engine.search.regex_plan import regex_files
from sari_core.engine.search.symbol_search import symbol_hits
from sari_core.engine.search.text_match import (
    FileHit,
    first_containing,
    fold_query,
    fold_text,
    glob_spec,
    literal_candidates,
    literal_files,
    regex_lines,
    verified,
)
from sari_core.models import SearchCall, SearchMatch, SearchResult

MAX_DEFINITIONS = 2000  # definitions of the query's names looked at for ranking
# A literal's count stops once this many of its candidate files, or this much of their
# text, were checked: past that it is common (``from typing import``, ``Exception``), and
# its best matches with "at least N files" tell the agent what it needs, where counting
# on would read and check thousands more texts (the one cost that grows with the tree).
# Its candidates are checked best first (the order in which files are read for hits), so
# the matches shown are those of a full count; a literal in few files is counted exactly.
COUNT_FILES_AT_MOST = 2000
COUNT_BYTES_AT_MOST = 16 << 20
SNIPPET_CHARS = 200
PREVIEW_BUDGET_CHARS = 6000


def _snippet(line: str, start: int, width: int = SNIPPET_CHARS) -> str:
    line = line.rstrip("\r\n")
    stripped = line.lstrip()
    start -= len(line) - len(stripped)
    if len(stripped) <= width:
        return stripped.rstrip()
    begin = max(0, min(start - width // 3, len(stripped) - width))
    piece = stripped[begin:begin + width]
    return ("…" if begin else "") + piece + ("…" if begin + width < len(stripped) else "")


@lru_cache(maxsize=1 << 16)
def _path_order(path: str) -> tuple[int | str, ...]:
    """The parts of :func:`file_order` that depend on the path alone (kept: the same
    paths are ordered search after search, thousands of them for a common literal)."""
    return file_order(FileHit(0, 0, path), False, "", True)[2:]


def order_key(hit: FileHit, defines: bool, needle: str, case_sensitive: bool
              ) -> tuple[int | str, ...]:
    """:func:`file_order`, its path-only parts remembered."""
    in_path = needle in (hit.path if case_sensitive else hit.path.lower())
    return (0 if defines else 1, 0 if in_path else 1, *_path_order(hit.path))


def first_in_order(files: list[FileHit], count: int, defines: Container[int], needle: str,
                   case_sensitive: bool) -> list[FileHit]:
    """The first ``count`` of ``files`` by :func:`order_key` (``heapq.nsmallest``, ties in
    their order). Thousands of files match a broad regex, and nearly all of them neither
    define a name of the query nor hold it in their path: those few are ordered apart (they
    come first), the rest by their path's order alone, without a key built per file."""
    apart: list[FileHit] = []
    rest: list[FileHit] = []
    for hit in files:
        (apart if hit.id in defines or needle in (hit.path if case_sensitive
                                                  else hit.path.lower()) else rest).append(hit)
    first = heapq.nsmallest(count, apart, key=lambda hit: order_key(
        hit, hit.id in defines, needle, case_sensitive))
    if len(first) >= count:
        return first
    return first + [hit for _, _, hit in heapq.nsmallest(
        count - len(first), zip(map(_path_order, [hit.path for hit in rest]), count_up(), rest))]


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
                hits, total, notes = symbol_hits(self.store, call)
            elif call.kind == "path":
                hits, total = self.path_hits(call)
            elif call.kind == "text" and not call.literal:  # no kind given: understood
                hits, total, notes = answer(self, call)
            else:
                hits, total = self.text_hits(call, files)
        partial = budget.note()
        notes = [*notes, *budget.bounds, *([partial] if partial is not None else [])]
        matches, cut = self.matches(hits, call.limit, ordered=not call.literal)
        if call.kind in ("text", "regex", "symbol"):  # each hit names the definition it is in
            # shown with the first hits: by the default call, and by a symbol search, whose
            # hits are the definitions the agent asked for
            hit_context.name_scopes(self.store, hits[:len(matches)] if not call.literal
                                    else self._ordered(hits)[:len(matches)], matches,
                                    show=not call.literal or call.kind == "symbol")
        return SearchResult(query=call.query, kind=call.kind, matches=matches, total=total,
                            truncated=cut or partial is not None or len(hits) > len(matches)
                            or total > len(matches),
                            index_ready=index_ready, notes=notes,
                            extra={"total_unit": "definitions" if call.kind == "symbol"
                                   else "files", **({"total_at_least": True}
                                                    if budget.bounds else {})})

    # --- the exact file sets --------------------------------------------------------

    def files(self, call: SearchCall) -> list[FileHit]:
        """Every file matching a text or regex query (the set ``total`` counts)."""
        if call.kind == "regex":
            return regex_files(self.store, self.compile_regex(call), glob=call.path_glob)
        return literal_files(self.store, call.query, case_sensitive=call.case_sensitive,
                             glob=call.path_glob)

    @staticmethod
    def compile_regex(call: SearchCall) -> Regex:
        """The regex of a regex call, compiled as the index runs it: a pattern it refuses
        is a structured error."""
        return compile_query(call.query, case_sensitive=call.case_sensitive)

    # --- text and regex -------------------------------------------------------------

    def text_hits(self, call: SearchCall, files: list[FileHit] | None = None
                  ) -> tuple[list[Hit], int]:
        """The line hits of a text or regex call, and the count of matching files.

        :param files: the matching files when found elsewhere (a regex ripgrep ran).
        """
        words = query_names(call.query)
        needle = call.query if call.case_sensitive else call.query.lower()
        scan_files = max(SCAN_FILES_MIN, SCAN_FILES_PER_RESULT * call.limit)
        bounded = False  # the files are a bounded count's, best first
        kept: dict[int, bytes] = {}  # texts the literal's check read, read again below
        # definitions of the query's names in the candidates, when the literal's bounded
        # count already looked them up (a superset of the files': no second query)
        candidate_defs: dict[int, dict[int, tuple[str, int]]] | None = None
        if files is None and call.kind == "text":
            files, bounded, candidate_defs = self._literal(call, words, needle, scan_files,
                                                           kept)
        if files is None:
            files = self.files(call)
        if not files:
            return [], 0
        ids = {f.id for f in files}
        defs = self._definitions(words, call.case_sensitive, ids) if candidate_defs is None \
            else {file_id: lines for file_id, lines in candidate_defs.items() if file_id in ids}

        chosen = files if len(files) <= scan_files else files[:scan_files] if bounded \
            else first_in_order(files, scan_files, defs, needle, call.case_sensitive)
        by_id = {hit.id: hit for hit in chosen}
        rx = self.compile_regex(call) if call.kind == "regex" else None
        hits: list[Hit] = []
        texts = chain(((file_id, kept[file_id].decode("utf-8")) for file_id in by_id
                       if file_id in kept),
                      self.store.texts([file_id for file_id in by_id if file_id not in kept]))
        for file_id, text in texts:
            # past the budget, the first matching file's lines still come: a file list
            # without a single line would cost the client another call
            if not work_budget.spend(len(text)) and hits:
                break
            file = by_id[file_id]
            found = self._regex_hits(rx, text) if rx is not None else \
                self._literal_hits(call.query, text, call.case_sensitive)
            if rx is None and defs.get(file_id):  # a definition past the first matches
                found += self._lines_holding(call.query, text, call.case_sensitive,
                                             set(defs[file_id]) - {hit[0] for hit in found})
            hits.extend(score_hits(file, found, defs.get(file_id, {}), needle, call))
        return hits, len(files)

    def _literal(self, call: SearchCall, words: list[str], needle: str, scan_files: int,
                 kept: dict[int, bytes]
                 ) -> tuple[list[FileHit] | None, bool, dict[int, dict[int, tuple[str, int]]] | None]:
        """The files holding a literal, whether they are a bounded count's, best first, and
        the definitions of the query's names in the candidates when they were looked up: a
        common literal is found by checking its candidates best first and stopping at
        ``COUNT_FILES_AT_MOST`` files or ``COUNT_BYTES_AT_MOST`` of text (with a sentence
        saying so). None for a query the trigram index cannot select."""
        candidates = literal_candidates(self.store, call.query, call.path_glob)
        if candidates is None:
            return None, False, None
        if len(candidates) <= scan_files:  # every match is read for hits: no bound
            return verified(self.store, candidates, call.query, call.case_sensitive,
                            kept), False, None
        defs = self._definitions(words, call.case_sensitive, {f.id for f in candidates})
        ordered = sorted(candidates, key=lambda hit: order_key(
            hit, hit.id in defs, needle, call.case_sensitive))
        found, checked = first_containing(self.store, ordered, call.query, call.case_sensitive,
                                          check_at_most=COUNT_FILES_AT_MOST,
                                          bytes_at_most=COUNT_BYTES_AT_MOST,
                                          found_at_least=scan_files, kept=kept)
        if checked < len(candidates):
            work_budget.say(
                f"At least {len(found):,} files contain {json.dumps(call.query)}: of the "
                f"{len(candidates):,} files that may, the {checked:,} ranked first were "
                "checked (the matches are the best of all). path_glob narrows the search "
                "and counts it exactly.")
        return found, True, defs

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
    def _lines_holding(query: str, text: str, case_sensitive: bool, numbers: set[int]
                       ) -> list[tuple[int, int, str]]:
        """(line number, column, line text) of those of ``numbers`` holding ``query``."""
        if not numbers:
            return []
        needle = query if case_sensitive else fold_query(query)
        lines = text.split("\n")
        out = []
        for number in sorted(numbers):
            line = lines[number - 1] if 0 < number <= len(lines) else ""
            column = (line if case_sensitive else fold_text(line, query.isascii())).find(needle)
            if column != -1:
                out.append((number, column, line))
        return out

    @staticmethod
    def _regex_hits(rx: Regex, text: str) -> list[tuple[int, int, str]]:
        lines = text.split("\n")
        out = []
        for number in regex_lines(rx, text, limit=HITS_PER_FILE * 4):
            found = rx.search(lines[number - 1])
            out.append((number, found.start() if found else 0, lines[number - 1]))
        return out

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

    # --- paths ----------------------------------------------------------------------

    def path_hits(self, call: SearchCall, rows: Iterable[FileHit] | None = None
                  ) -> tuple[list[Hit], int]:
        """The files whose path matches a path call, best first, and their count.

        :param rows: the files to look at (every indexed file if None).
        """
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
            score -= 0.5 if is_test(row.path) else 0.0
            hits.append(Hit(FileHit(row.id, row.root, row.path), 0, row.path,
                             round(score - min(row.path.count("/"), 9) * 0.01, 2), "path"))
        hits.sort(key=lambda hit: (-hit.score, hit.file.root, hit.file.path))
        return hits, len(hits)

    # --- output ---------------------------------------------------------------------

    @staticmethod
    def _ordered(hits: list[Hit]) -> list[Hit]:
        return sorted(hits, key=lambda hit: (-hit.score, hit.file.root, hit.file.path, hit.line))

    def matches(self, hits: list[Hit], limit: int, ordered: bool = False
                ) -> tuple[list[SearchMatch], bool]:
        """The first ``limit`` hits as matches, with snippets that share one preview
        budget, and whether a snippet was cut.

        :param ordered: the hits are in the order to show (else they are ranked here).
        """
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
