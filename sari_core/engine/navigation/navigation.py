"""``search kind=references|callers|implementations`` answered from the index.

Names are matched as names (tags carry no scopes or types), so for a bare name the
answer is a superset of what a type checker would say: every place the name is used,
called or extended, whatever it resolves to. Results say so: ``extra.precision`` is
``name-based``. A query naming one definition (``Session.send``, ``pkg.files.close``,
``src/pkg/core.py:120``: :mod:`sari_core.engine.python.symbol_target`) is answered for that
definition: references and callers are narrowed by the class, module or import written
at each use (:mod:`sari_core.engine.navigation.narrowing`; these are read for Python, and
elsewhere a use in a file defining no namesake is kept by name); ``extra.precision`` is then
``narrowed-by-index`` and a note says how many uses were kept and how many of them the
index could not judge. A bare name naming one symbol is answered as its ``path:line``; one
naming several keeps a use when judging it for one of them keeps it, and the note lists
the definitions pooled. Each hit names the definition enclosing it and that definition's
lines (``scope``, ``scope_lines``), so an agent reads just that range.

* ``callers``: the call sites the tags found (``@reference.call``), one per line, and
  the places the name is handed on as a value (``key=self.name``, ``f(obj.name, x)``,
  ``x = obj.name``: the name ends an argument, an assignment or the line), since a
  function passed or stored is called from there, and a language server's call
  hierarchy counts them too;
* ``implementations``: the definitions that extend or implement the name
  (``@reference.implementation``: base classes, implemented interfaces);
* ``references``: every line of a source file using the name in code (a comment or a
  string naming it is no use), from the text index; the lines that define the name are included as ``kind="definition"``
  (overloads and redefinitions are references of each other).

``definitions`` lists where the query's definitions are (absolute path and lines): the
one it names, else every definition of the name, for a plugin that asks a language
server about each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sari_core.engine.files.paths import PathGuard
from sari_core.engine.index.grammars import GRAMMARS
from sari_core.engine.index.names import MatchMode, folded_name, like_pattern, matches, rank
from sari_core.engine.index.scope_tree import Scope, innermost
from sari_core.engine.index.store import IndexStore
from sari_core.engine.navigation.code_words import CodeWords
from sari_core.engine.navigation.narrowing import Narrower, Use, note, overrides, pooled_note
from sari_core.engine.python.code_text import Spans, in_prose, in_string, prose_spans
from sari_core.engine.python.decorated import PYTHON_SUFFIXES, accessor_lines
from sari_core.engine.python.receiver_types import ReceiverTypes
from sari_core.engine.python.scopes import definition_trees
from sari_core.engine.python.symbol_target import Target, is_location, resolve, symbols
from sari_core.engine.search.text_match import glob_spec, literal_files
from sari_core.models import SearchCall, SearchMatch, SearchResult

PRECISION = "name-based"
NARROWED = "narrowed-by-index"  # one definition's: uses judged by class, module, import
MAX_NAMES = 20  # distinct names a prefix or fuzzy query expands to
MAX_LOCATIONS = 20_000
# a name defined more often than this is answered by name: judging each costs too much
MAX_POOLED = 40
SNIPPET_CHARS = 160
_TAG_KIND = {"callers": "call", "implementations": "implementation"}
_CLASS_KINDS = ("class", "interface", "struct")
# After a name handed on as a value: the end of an argument, an element, a statement.
_VALUE_END = frozenset(",)]};")
_NOT_CODE = ("#", "//", "/*", "*", "import ", "from ", "--")


@dataclass(frozen=True)
class Location:
    file_id: int
    root: int
    path: str
    line: int
    name: str
    is_definition: bool = False


@dataclass(frozen=True)
class Definition:
    """Where a name is defined: what a language server is asked about (absolute path)."""

    path: Path
    line: int  # first line of the definition (1-based)
    end_line: int
    name: str
    kind: str


def target_name(query: str) -> str:
    """The last part of a dotted or ``::`` qualified name (``Cart.total`` -> ``total``)."""
    return query.strip().rsplit(".", 1)[-1].rsplit("::", 1)[-1].strip("()")


class Navigator:
    """Answers the navigation kinds of :class:`SearchCall` from the index."""

    def __init__(self, store: IndexStore, guard: PathGuard) -> None:
        self.store = store
        self.guard = guard

    def names(self, query: str, mode: MatchMode | None) -> list[str]:
        """Indexed names (defined or used) that ``query`` matches, best first.

        Without a match mode the name is taken as spelled: ``Command`` is not ``command``.
        """
        wanted = target_name(query)
        if not wanted or mode is None:
            return [wanted] if wanted else []
        key = folded_name(wanted)
        if mode == "fuzzy" or not key:  # a name containing it: every name is looked at
            like = like_pattern(wanted, mode)
            rows = self.store.reader.execute(
                "SELECT DISTINCT name FROM symbols WHERE name LIKE ? ESCAPE '\\'",
                (like,)).fetchall()
            used = self.store.used_names(like=like)
        else:  # exact or prefix: a range of the folded-name index (folded names are ASCII)
            end = key + "\x7f" if mode == "prefix" else key + "\x00"
            rows = self.store.reader.execute(
                "SELECT DISTINCT name FROM symbols WHERE folded >= ? AND folded < ?",
                (key, end)).fetchall()
            used = self.store.used_names(folded_from=key, folded_to=end)
        defined = {str(row[0]) for row in rows}
        found = [name for name in defined | set(used) if matches(wanted, name, mode)]
        if mode == "exact" and wanted not in defined:
            defined.add(wanted)  # used only in text the tags do not cover, or not at all
            if wanted not in found:
                found.append(wanted)
        found.sort(key=lambda name: (rank(wanted, name), len(name), name))
        out: list[str] = []
        for name in found:  # a used name is listed while some file still uses it
            if name in defined or self.store.referenced(name):
                out.append(name)
                if len(out) == MAX_NAMES:
                    break
        return out

    def definitions(self, query: str, mode: MatchMode | None,
                    limit: int = MAX_NAMES * 10) -> list[Definition]:
        """The indexed definitions ``query`` names: the one a ``Class.method``,
        ``module.func`` or ``path:line`` query names, else every definition of the names
        it matches, by file and line."""
        if mode is None:
            target = resolve(self.store, query)
            if target.chosen and not target.note:
                # at a place, the definition there alone: its overloads or its property's
                # setter are the same symbol to a language server asked at it, and each
                # asked too would add the asked definition's own line to the answer
                chosen = target.chosen[:1] if is_location(query) else target.chosen
                return [Definition(self.guard.resolved(n.row.root, n.row.path).abs, n.row.line,
                                   n.row.end_line, n.row.name, n.row.kind)
                        for n in chosen][:limit]
        rows = self._symbol_rows("f.root, f.path, s.line, s.end_line, s.name, s.kind",
                                 self.names(query, mode), "s.is_def = 1", (), limit)
        return [Definition(self.guard.resolved(int(root), str(path)).abs, int(line),
                           int(end_line), str(name), str(kind))
                for root, path, line, end_line, name, kind in rows]

    def search(self, call: SearchCall, *, index_ready: bool = True) -> SearchResult:
        if call.match is None:  # the files that may use the name answer with their parse
            self.store.parse_deferred_for([target_name(call.query)])
        target = resolve(self.store, call.query) if call.match is None else None
        pooled: list[Target] = []
        if target is not None and target.chosen and not target.note:
            each = symbols(self.store, target)
            if len(each) == 1:
                target = each[0]  # one symbol however it is named: as asked at its line
            elif len(each) <= MAX_POOLED:
                pooled = each
        names = [target.name] if target is not None and target.name \
            else self.names(call.query, call.match)
        # a class is called where it is constructed: handing it on (x: Env, class B(Env),
        # f(Env)) is no call of it
        if target is not None and target.named and target.chosen:
            classes_only = all(n.row.kind in _CLASS_KINDS for n in target.chosen)
        elif call.kind != "callers":
            classes_only = False
        else:  # a bare name: a class when each of its definitions is one
            kinds = {str(row[0]) for row in self._symbol_rows(
                "DISTINCT s.kind", names, "s.is_def = 1", (), MAX_LOCATIONS)}
            classes_only = bool(kinds) and kinds <= set(_CLASS_KINDS)
        found = self._find(names, call, handed_on=not classes_only)
        notes: list[str] = []
        precision = PRECISION
        if target is not None and target.note:
            notes.append(target.note)
        elif target is not None and target.named and call.kind == "implementations" \
                and any(n.parent for n in target.chosen):
            found = [Location(n.row.file_id, n.row.root, n.row.path, n.row.line, n.row.name)
                     for n in overrides(self.store, target)]
            notes.append(f"The overrides of {target.chosen[0].qualified} in the classes "
                         "extending its class, as the index sees their bases.")
            precision = NARROWED
        elif pooled and call.kind != "implementations":
            before = len(found)
            found, undecided = self._pooled(found, pooled)
            notes.append(pooled_note(pooled, before, len(found), undecided))
            precision = NARROWED
        elif target is not None and target.named:
            before = len(found)
            found, undecided, by_name = self._narrowed(found, target)
            notes.append(note(target, before, len(found), undecided, by_name))
            precision = NARROWED
        trees = definition_trees(self.store, sorted({loc.file_id for loc in found}))
        texts = dict(self.store.texts(sorted({loc.file_id for loc in found[:call.limit]})))
        matches_out = []
        for loc in found[:call.limit]:
            scope = innermost(trees.get(loc.file_id, []), loc.line)
            matches_out.append(self._match(loc, scope, texts.get(loc.file_id, ""), call.kind))
        return SearchResult(
            query=call.query, kind=call.kind, matches=matches_out, total=len(found),
            truncated=len(found) > len(matches_out), index_ready=index_ready, notes=notes,
            extra={"total_unit": "locations", "precision": precision, "names": names})

    def _pooled(self, found: list[Location], each: list[Target]) -> tuple[list[Location], int]:
        """The uses that can be one of several symbols' (each judged as asked at its line),
        and how many of them no symbol's judging decided."""
        kept: set[tuple[int, int]] = set()
        undecided = 0
        types = ReceiverTypes(self.store)
        prose: dict[int, Spans] = {}
        for target in each:
            # a use one definition keeps is in the answer: no other need judge it
            left = [loc for loc in found if (loc.file_id, loc.line) not in kept]
            mine, unjudged, _ = self._narrowed(left, target, types, prose)
            kept |= {(loc.file_id, loc.line) for loc in mine}
            undecided += unjudged
        return [loc for loc in found if (loc.file_id, loc.line) in kept], undecided

    def _narrowed(self, found: list[Location], target: Target,
                  types: ReceiverTypes | None = None, prose: dict[int, Spans] | None = None
                  ) -> tuple[list[Location], int, int]:
        """The uses that can be the chosen definition's, how many were undecided, and how
        many were kept by the receiver's name alone."""
        narrower = Narrower(self.store, target, types, prose)
        ids = sorted({loc.file_id for loc in found})
        trees = definition_trees(self.store, ids)
        texts = dict(self.store.texts(ids))
        kept = []
        for loc in found:
            text = texts.get(loc.file_id, "")
            lines = text.split("\n")
            line = lines[loc.line - 1] if 0 < loc.line <= len(lines) else ""
            use = Use(loc.file_id, loc.path, loc.line, line, loc.is_definition)
            if narrower.keep(use, trees.get(loc.file_id, []), text):
                kept.append(loc)
        return kept, narrower.undecided, narrower.by_name

    def locations(self, call: SearchCall) -> list[Location]:
        """Every location a navigation query finds (what ``total`` counts)."""
        return self._find(self.names(call.query, call.match), call)

    def _find(self, names: Sequence[str], call: SearchCall, handed_on: bool = True
              ) -> list[Location]:
        if call.kind == "references":
            return self._uses(names, call.path_glob)
        tagged = self._tagged(names, _TAG_KIND[call.kind], call.path_glob)
        if call.kind == "callers" and not handed_on:
            # a class's callers construct it: ``new Base()`` is tagged as a class's use
            built = {(loc.file_id, loc.line) for loc in tagged}
            tagged += [loc for loc in self._tagged(names, "class", call.path_glob)
                       if (loc.file_id, loc.line) not in built]
            return sorted(tagged, key=lambda loc: (loc.root, loc.path, loc.line))
        if call.kind != "callers":
            return tagged
        seen = {(loc.file_id, loc.line) for loc in tagged}
        found = list(tagged)
        for loc in [*self._values(names, call.path_glob),
                    *self._property_reads(names, call.path_glob)]:
            if (loc.file_id, loc.line) not in seen:
                seen.add((loc.file_id, loc.line))
                found.append(loc)
        return sorted(found, key=lambda loc: (loc.root, loc.path, loc.line))

    def _property_reads(self, names: Sequence[str], glob: str | None) -> list[Location]:
        """The lines reading or setting a property of one of ``names`` (``x.name``, no
        call needed): its getter or setter runs there."""
        accessed = sorted(set(accessor_lines(self.store, names).values()))
        if not accessed:
            return []
        uses = [loc for loc in self._uses(accessed, glob)
                if not loc.is_definition and loc.path.endswith(PYTHON_SUFFIXES)]
        texts = dict(self.store.texts(sorted({loc.file_id for loc in uses})))
        prose: dict[int, Spans] = {}
        out = []
        for loc in uses:
            text = texts.get(loc.file_id, "")
            lines = text.split("\n")
            line = lines[loc.line - 1] if 0 < loc.line <= len(lines) else ""
            if line.lstrip().startswith(_NOT_CODE):
                continue
            if loc.file_id not in prose:
                prose[loc.file_id] = prose_spans(text)
            if any(not in_string(line, found.start())
                   and not in_prose(prose[loc.file_id], loc.line, found.start())
                   for found in re.finditer(rf"\.\s*{re.escape(loc.name)}(?![\w$])", line)):
                out.append(loc)
        return out

    def _symbol_rows(self, columns: str, names: Sequence[str], where: str,
                     parameters: tuple[object, ...], limit: int) -> list[tuple[Any, ...]]:
        """``columns`` of the symbol rows named ``names`` that also match ``where``, in
        path and line order (``s`` is the symbol, ``f`` its file)."""
        if not names:
            return []
        marks = ",".join("?" * len(names))
        return list(self.store.reader.execute(
            f"SELECT {columns} FROM symbols s JOIN files f ON f.id = s.file_id "
            f"WHERE s.folded IN ({marks}) AND s.name IN ({marks}) AND {where} "
            "ORDER BY f.root, f.path, s.line LIMIT ?",
            (*map(folded_name, names), *names, *parameters, limit)).fetchall())

    def _values(self, names: Sequence[str], glob: str | None) -> list[Location]:
        """The lines where a name is handed on as a value rather than called."""
        texts: dict[int, list[str]] = {}
        uses = [loc for loc in self._uses(names, glob) if not loc.is_definition]
        for file_id, text in self.store.texts(sorted({loc.file_id for loc in uses})):
            texts[file_id] = text.split("\n")
        out = []
        for loc in uses:
            lines = texts.get(loc.file_id, [])
            if 0 < loc.line <= len(lines) and _hands_on(lines[loc.line - 1], loc.name):
                out.append(loc)
        return out

    def _tagged(self, names: Sequence[str], kind: str, glob: str | None) -> list[Location]:
        found = [Location(hit.file_id, hit.root, hit.path, hit.line, hit.name)
                 for hit in self.store.references(names, (kind,))[:MAX_LOCATIONS]]
        return _in_glob(found, glob)

    def _uses(self, names: Sequence[str], glob: str | None) -> list[Location]:
        out: list[Location] = []
        for name in names:
            files = literal_files(self.store, name, case_sensitive=True, glob=glob)
            rows = self.store.files_by_id([hit.id for hit in files])
            source = [hit for hit in files
                      if hit.id in rows and rows[hit.id].language in GRAMMARS]
            declared = self._declaration_lines(name, [hit.id for hit in source])
            word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
            by_id = {hit.id: hit for hit in source}
            for file_id, text in self.store.texts(list(by_id)):
                hit = by_id[file_id]
                defining = declared.get(file_id, set())
                code: CodeWords | None = None  # parsed once a line names it
                for number, line in enumerate(text.split("\n"), 1):
                    found = [m.span() for m in word.finditer(line)]
                    if not found:
                        continue
                    if code is None:
                        code = CodeWords(rows[file_id].language, text)
                    # a comment or a string naming it is no use of it
                    if number in defining or any(code.is_code(number, *span) for span in found):
                        out.append(Location(file_id, hit.root, hit.path, number, name,
                                            number in defining))
        out.sort(key=lambda loc: (loc.root, loc.path, loc.line))
        return out[:MAX_LOCATIONS]

    def _declaration_lines(self, name: str, file_ids: Sequence[int]) -> dict[int, set[int]]:
        """Per file, the line where each definition of ``name`` spells it (not a use)."""
        if not file_ids:
            return {}
        texts = None
        out: dict[int, set[int]] = {}
        wanted = set(file_ids)
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        rows = self.store.reader.execute(
            "SELECT file_id, line, end_line FROM symbols WHERE folded = ? AND name = ? "
            "AND is_def = 1", (folded_name(name), name)).fetchall()
        rows = [row for row in rows if row[0] in wanted]
        if rows:
            texts = dict(self.store.texts(sorted({int(row[0]) for row in rows})))
        for file_id, line, end_line in rows:
            lines = (texts or {}).get(file_id, "").split("\n")
            for number in range(line, min(end_line, len(lines)) + 1):
                if word.search(lines[number - 1]):
                    out.setdefault(file_id, set()).add(number)
                    break
        return out

    def _match(self, loc: Location, scope: Scope | None, text: str, kind: str) -> SearchMatch:
        lines = text.split("\n")
        line = lines[loc.line - 1].strip() if 0 < loc.line <= len(lines) else ""
        if len(line) > SNIPPET_CHARS:
            line = line[:SNIPPET_CHARS] + "…"
        label = {"callers": "call", "implementations": "implementation"}.get(kind, "reference")
        if loc.is_definition:
            label = "definition"
        if kind == "implementations" and scope is not None and scope.line == loc.line:
            # the hit is the extending definition itself: point at all of it
            return SearchMatch(path=self.guard.display(loc.root, loc.path), line=scope.line,
                               end_line=scope.end_line, kind=label, snippet=line,
                               symbol=scope.qualified)
        return SearchMatch(
            path=self.guard.display(loc.root, loc.path), line=loc.line, end_line=loc.line,
            kind=label, snippet=line, symbol=loc.name,
            scope=scope.qualified if scope else None,
            scope_lines=[scope.line, scope.end_line] if scope else None)


def _hands_on(line: str, name: str) -> bool:
    """Does ``line`` (code, not a comment or an import) hand ``name`` on as a value?"""
    if line.lstrip().startswith(_NOT_CODE):
        return False
    for found in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line):
        rest = line[found.end():].lstrip()
        before = line[:found.start()].rstrip()
        handed = before[-1:] in (".", "=", "(", ",", ":", "[") \
            or before.endswith(("return", "yield"))
        if (not rest or rest[0] in _VALUE_END) and handed:
            return True
    return False


def _in_glob(found: list[Location], glob: str | None) -> list[Location]:
    if not glob:
        return found
    spec = glob_spec(glob)
    return [loc for loc in found if spec.match_file(loc.path)]
