"""Where a name a Python file uses comes from: its imports, followed through the packages
re-exporting it, to the module defining it, read from the index's text."""

from __future__ import annotations

import re

from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.python_text import module_aliases

MAX_REEXPORTS = 4  # from pkg import X, where pkg imports X from .sub, ... followed this far


_TOP_ASSIGNMENT = re.compile(
    r"(?P<name>[A-Za-z_]\w*)\s*(?::\s*(?P<ann>[^=]+?))?\s*=(?!=)\s*(?P<value>.+)")


class ImportOrigins:
    """The imports of indexed files, kept per file while one query runs."""

    store: IndexStore

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._lines: dict[int, list[str]] = {}
        self._aliases: dict[int, dict[str, str]] = {}
        self._stars: dict[int, list[str]] = {}
        self._tops: dict[int, set[str]] = {}
        self._top: dict[int, dict[str, list[tuple[int, re.Match[str]]]]] = {}

    def lines(self, file_id: int) -> list[str]:
        if file_id not in self._lines:
            self._lines[file_id] = (self.store.text_of(file_id) or "").split("\n")
        return self._lines[file_id]

    def aliases(self, file_id: int) -> dict[str, str]:
        """:func:`module_aliases` of a file."""
        if file_id not in self._aliases:
            self._aliases[file_id] = module_aliases(self.lines(file_id))
        return self._aliases[file_id]

    def origin(self, file_id: int, path: str, name: str, renamed: bool = False
               ) -> str | None:
        """The module ``name`` comes from in a file importing it, through the packages
        re-exporting it (``from jinja2 import Template`` -> ``.environment`` when the
        package's ``__init__`` imports it from there); None when the file does not.
        ``renamed``: also when the file imports it under another name (``from m import
        name as _name``: the import statement itself names it)."""
        followed = self._follow(file_id, path, name, renamed)
        return followed[0] if followed is not None else None

    def origin_file(self, file_id: int, path: str, name: str, renamed: bool = False
                    ) -> tuple[int, str] | None:
        """The indexed file of :meth:`origin`'s module (a relative module is resolved
        from the last file followed, not from the importing one)."""
        followed = self._follow(file_id, path, name, renamed)
        return followed[1] if followed is not None else None

    def _follow(self, file_id: int, path: str, name: str, renamed: bool
                ) -> tuple[str, tuple[int, str] | None] | None:
        imported = self.aliases(file_id).get(name)
        if renamed and (imported is None or not imported.endswith(f".{name}")):
            imported = next((dotted for dotted in self.aliases(file_id).values()
                             if dotted.endswith(f".{name}")), None)
        if imported is None:
            imported = self._starred(file_id, path, name)
        if imported is None or not imported.endswith(f".{name}"):
            return None
        module = imported[:-len(name) - 1]
        found = None
        for _ in range(MAX_REEXPORTS):
            found = self.module_file(module, path)
            if found is None:
                break
            file_id, path = found
            again = self.aliases(file_id).get(name)
            if again is None or not again.endswith(f".{name}"):
                break
            module = again[:-len(name) - 1]
            found = None  # followed on: the next module's file is not known yet
        return module, found

    def module_file(self, module: str, importer: str) -> tuple[int, str] | None:
        """The indexed file of ``module`` (relative to ``importer``'s package when it
        starts with dots)."""
        dots = len(module) - len(module.lstrip("."))
        parts = [part for part in module.lstrip(".").split(".") if part]
        if dots:
            base = importer.split("/")[:-1]
            base = base[:len(base) - (dots - 1)] if dots > 1 else base
            candidates = ["/".join([*base, *parts, "__init__.py"]),
                          "/".join([*base, *parts]) + ".py"]
            rows = self.store.reader.execute(
                "SELECT id, path FROM files WHERE path IN (?, ?)", candidates).fetchall()
        else:
            tail = "/".join(parts)
            rows = self.store.reader.execute(
                "SELECT id, path FROM files WHERE path LIKE ? OR path LIKE ? OR path = ? "
                "OR path = ?", (f"%/{tail}/__init__.py", f"%/{tail}.py", f"{tail}/__init__.py",
                                f"{tail}.py")).fetchall()
        return (int(rows[0][0]), str(rows[0][1])) if len(rows) == 1 else None

    def _workspace_module(self, name: str, file_id: int) -> bool:
        """Is ``name`` a module of the workspace that the file imports (``from kit import
        api``), not an installed one (``pickle.loads`` is no workspace's ``loads``)?"""
        dotted = self.aliases(file_id).get(name)
        if dotted is None:
            return False
        return dotted.startswith(".") or self.module_file(dotted, "") is not None

    def _top_assignments(self, file_id: int) -> dict[str, list[tuple[int, re.Match[str]]]]:
        """Per name, the assignments at a module's top level (no indentation)."""
        if file_id not in self._top:
            found: dict[str, list[tuple[int, re.Match[str]]]] = {}
            for number, text in enumerate(self.lines(file_id), 1):
                assigned = _TOP_ASSIGNMENT.match(text.split("#", 1)[0]) \
                    if text[:1].isalpha() or text[:1] == "_" else None
                if assigned:
                    found.setdefault(assigned["name"], []).append((number, assigned))
            self._top[file_id] = found
        return self._top[file_id]

    def _starred(self, file_id: int, path: str, name: str) -> str | None:
        """``module.name`` when the file takes ``name`` with ``from module import *`` from
        an indexed module that defines or imports it at its top level."""
        if file_id not in self._stars:  # read once per file: asked at every unknown name
            self._stars[file_id] = [found["module"] for line in self.lines(file_id)
                                    if (found := _STAR_IMPORT.match(line))]
        for module in self._stars[file_id]:
            found = self.module_file(module, path)
            if found is not None and (name in self.aliases(found[0])
                                      or name in self._top_names(found[0])):
                return f"{module}{'' if module.endswith('.') else '.'}{name}"
        return None

    def _top_names(self, file_id: int) -> set[str]:
        """The names a module defines at its top level (def, class, assignment)."""
        if file_id not in self._tops:
            self._tops[file_id] = {found["name"] or found["assigned"]
                                   for line in self.lines(file_id)
                                   if (found := _TOP_NAME.match(line))}
        return self._tops[file_id]


_STAR_IMPORT = re.compile(r"from\s+(?P<module>[\w.]+)\s+import\s+\*")
_TOP_NAME = re.compile(r"(?:async\s+)?(?:def|class)\s+(?P<name>[A-Za-z_]\w*)"
                       r"|(?P<assigned>[A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)")
