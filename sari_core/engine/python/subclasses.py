"""Which classes extend which, as the index sees their bases (``class B(A)`` tags ``A``
as implemented at B's line): a method's overrides, and the classes that inherit it.

Classes are walked by (file, name): a base written in a file is resolved through that
file's imports (``from pkg import abc`` / ``class Stream(abc.Stream)`` extends the
``Stream`` of ``pkg/abc.py``, not every class called ``Stream``). A base the workspace
does not resolve (a star import from outside it, a module it does not hold) is walked by
its name alone, as any class of that name."""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from sari_core.engine.index.names import folded_name
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.import_origins import ImportOrigins
from sari_core.engine.python.python_text import signature, top_level
from sari_core.engine.python.symbol_target import Named, Target

ClassKey = tuple[int, str]  # (file id, class name): one class, not every namesake
_CLASS_KINDS = ("class", "interface", "struct")
_DOTTED = re.compile(r"[A-Za-z_][\w.]*")


def extending(store: IndexStore, classes: set[str], stop: AbstractSet[str] = frozenset()
              ) -> set[str]:
    """Every class extending one of ``classes`` (by name), through any number of steps,
    but not through a class in ``stop`` (one overriding the method asked about)."""
    found: set[str] = set()
    todo = set(classes)
    while todo:
        todo = {name for _, _, name, _ in _subclass_rows(store, todo)
                if name not in found and name not in classes and name not in stop}
        found |= todo
    return found


def class_keys(store: IndexStore, named: Iterable[Named]) -> set[ClassKey]:
    """The classes holding the definitions ``named`` (methods: their class in their file);
    a function's local function has none."""
    return {(n.row.file_id, n.parent.rsplit(".", 1)[-1]) for n in named
            if n.parent and n.in_class}


class Subclasses:
    """The exact subclasses of exact classes, with bases resolved once per class header."""

    def __init__(self, store: IndexStore, origins: ImportOrigins | None = None) -> None:
        self.store = store
        self.origins = origins or ImportOrigins(store)
        self._resolved: dict[tuple[int, int, str], ClassKey | None] = {}
        self._paths: dict[int, str] = {}
        self._defines: dict[ClassKey, bool] = {}

    def extending(self, classes: set[ClassKey], stop: AbstractSet[ClassKey] = frozenset()
                  ) -> set[ClassKey]:
        """Every class extending one of ``classes``, at any depth, not through ``stop``."""
        found: set[ClassKey] = set()
        todo = set(classes)
        while todo:
            todo = {key for key in self._step(todo)
                    if key not in found and key not in classes and key not in stop}
            found |= todo
        return found

    def _step(self, todo: set[ClassKey]) -> set[ClassKey]:
        """The classes whose header names one of ``todo`` as a base, resolved."""
        step: set[ClassKey] = set()
        for file_id, first, owner, base in _subclass_rows(self.store, {n for _, n in todo}):
            resolved = self._base(file_id, first, base)
            if resolved in todo or (resolved is None and any(n == base for _, n in todo)):
                step.add((file_id, owner))  # resolved to one of them, or by name alone
        return step

    def _base(self, file_id: int, first: int, base: str) -> ClassKey | None:
        """The class the base ``base`` of the class at ``first`` in ``file_id`` is, through
        the file's imports; None when the workspace does not tell."""
        key = (file_id, first, base)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(file_id, first, base)
        return self._resolved[key]

    def _resolve(self, file_id: int, first: int, base: str) -> ClassKey | None:
        header = signature(self.origins.lines(file_id), first)
        opened = header.find("(")
        if opened < 0:
            return None
        written = next((found[0] for part in top_level(header[opened + 1:header.rfind(")")], ",")
                        if (found := _DOTTED.match(part.strip()))
                        and found[0].rsplit(".", 1)[-1] == base), None)
        if written is None:
            return None
        path = self._path(file_id)
        if "." in written:  # module.Class: the module the file binds that name to
            head, rest = written.split(".", 1)
            dotted = self.origins.aliases(file_id).get(head)
            if dotted is None:
                return None
            module = ".".join([dotted, *rest.split(".")[:-1]])
            found = self.origins.module_file(module, path)
            if found is None:
                return None
            return self._defined_in(found[0], found[1], base)
        if self._defines_class(file_id, base) and base not in self.origins.aliases(file_id):
            return (file_id, base)  # a class of that name defined in the same file
        found = self.origins.origin_file(file_id, path, base)
        return self._defined_in(found[0], found[1], base) if found is not None else None

    def _defined_in(self, file_id: int, path: str, name: str) -> ClassKey | None:
        """The class ``name`` of a module's file, or the one the module imports."""
        if self._defines_class(file_id, name):
            return (file_id, name)
        found = self.origins.origin_file(file_id, path, name)
        if found is not None and self._defines_class(found[0], name):
            return (found[0], name)
        return None

    def _defines_class(self, file_id: int, name: str) -> bool:
        if (file_id, name) not in self._defines:
            marks = ",".join("?" * len(_CLASS_KINDS))
            self._defines[(file_id, name)] = self.store.reader.execute(
                "SELECT 1 FROM symbols WHERE file_id = ? AND is_def = 1 AND folded = ? AND "
                f"name = ? AND kind IN ({marks}) LIMIT 1",
                (file_id, folded_name(name), name, *_CLASS_KINDS)).fetchone() is not None
        return self._defines[(file_id, name)]

    def _path(self, file_id: int) -> str:
        if file_id not in self._paths:
            row = self.store.reader.execute("SELECT path FROM files WHERE id = ?",
                                            (file_id,)).fetchone()
            self._paths[file_id] = str(row[0]) if row else ""
        return self._paths[file_id]


def _owner(store: IndexStore, file_id: int, line: int) -> tuple[str, int] | None:
    """The innermost class holding ``line`` of ``file_id``: its name and first line."""
    marks = ",".join("?" * len(_CLASS_KINDS))
    row = store.reader.execute(
        "SELECT name, line FROM symbols WHERE file_id = ? AND is_def = 1 AND line <= ? "
        f"AND end_line >= ? AND kind IN ({marks}) ORDER BY line DESC LIMIT 1",
        (file_id, line, line, *_CLASS_KINDS)).fetchone()
    return (str(row[0]), int(row[1])) if row else None


def _subclass_rows(store: IndexStore, names: set[str]) -> list[tuple[int, int, str, str]]:
    """(file id, first line, name) of each class naming one of ``names`` as a base, and
    the base's name."""
    rows = [(hit.file_id, hit.line, hit.name)
            for hit in store.references(sorted(names), ("implementation",))]
    found = []
    for file_id, line, base in rows:
        owner = _owner(store, int(file_id), int(line))
        if owner is not None:
            found.append((int(file_id), owner[1], owner[0], str(base)))
    return found


def overrides(store: IndexStore, target: Target) -> list[Named]:
    """The definitions of the chosen method's name in classes extending its class, at
    any depth: what implements (overrides) it."""
    below = Subclasses(store).extending(class_keys(store, target.chosen))
    return [n for n in target.others if n.parent
            and (n.row.file_id, n.parent.rsplit(".", 1)[-1]) in below]
