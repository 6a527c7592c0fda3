"""Definitions read out of the index for one query: a file's tree, the classes of a name,
their bases, what a function returns, the class of an attribute; kept per file while the
query runs. The receiver reader (:mod:`sari_core.engine.python.receiver_types`) and its
container mixin (:mod:`sari_core.engine.python.element_types`) both read through it.
"""

from __future__ import annotations

import re

from sari_core.engine.index.names import folded_name
from sari_core.engine.index.scope_tree import Scope, innermost
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.decorated import is_accessor, yielded_annotation
from sari_core.engine.python.decorators import decorated_start
from sari_core.engine.python.import_origins import ImportOrigins
from sari_core.engine.python.python_text import (
    CLASS_KINDS,
    CONSTRUCTOR,
    annotation_classes,
    class_at,
    parameter_annotation,
    return_annotation,
    signature,
    top_level,
)
from sari_core.engine.python.scopes import definition_trees

MAX_DEPTH = 4  # x = y.f(); y = z.g(); ... followed this far
_QUALIFIED_CONSTRUCTOR = re.compile(r"(?P<module>[A-Za-z_]\w*)\.(?:\w+\.)*(?P<cls>[A-Z]\w*)\s*\(")


def constructs(callee: str, definitions: Definitions) -> bool:
    """Is calling ``callee`` making an instance: an indexed class, or a CapWords name (a
    class by Python's naming convention, ``threading.Event()``, whose methods are its own)?"""
    return definitions.is_class(callee) or (callee[:1].isupper() and not callee.isupper())


class Definitions(ImportOrigins):
    """Reads definitions' text out of the index, kept per file while one query runs."""

    def __init__(self, store: IndexStore) -> None:
        super().__init__(store)
        self._trees: dict[int, list[Scope]] = {}
        self._classes: dict[str, list[tuple[int, int, int]]] = {}
        self._returns: dict[tuple[str, str | None], set[str] | None] = {}
        self._attributes: dict[tuple[str, str], set[str] | None] = {}
        self._aliases_of: dict[str, set[str] | None] = {}

    def foreign(self, value: str, file_id: int) -> str | None:
        """``asyncio.Event`` for ``asyncio.Event(...)`` made through an installed module:
        a class no workspace class is, whatever its name (``Event``)."""
        found = _QUALIFIED_CONSTRUCTOR.match(value)
        if found is None or found["module"] not in self.aliases(file_id) \
                or self.is_class(found["module"]) \
                or self._workspace_module(found["module"], file_id):
            return None
        return f"{found['module']}.{found['cls']}"

    def tree(self, file_id: int) -> list[Scope]:
        if file_id not in self._trees:
            self._trees[file_id] = definition_trees(self.store, [file_id]).get(file_id, [])
        return self._trees[file_id]

    def classes(self, name: str) -> list[tuple[int, int, int]]:
        """(file id, first line, last line) of each class called ``name``."""
        if name not in self._classes:
            marks = ",".join("?" * len(CLASS_KINDS))
            self._classes[name] = [(int(f), int(a), int(b)) for f, a, b in self.store.reader.execute(
                "SELECT file_id, line, end_line FROM symbols WHERE is_def = 1 AND folded = ? "
                f"AND name = ? AND kind IN ({marks})", (folded_name(name), name, *CLASS_KINDS))]
        return self._classes[name]

    def is_class(self, name: str) -> bool:
        return bool(self.classes(name))

    def bases(self, owner: str) -> set[str]:
        """The classes ``owner`` names as its bases (the last part of each dotted name)."""
        found: set[str] = set()
        for file_id, first, _ in self.classes(owner):
            header = signature(self.lines(file_id), first)
            opened = header.find("(")
            if opened < 0 or not header.lstrip().startswith("class"):
                continue
            for part in top_level(header[opened + 1:header.rfind(")")], ","):
                base = part.strip().split("[", 1)[0]
                if base and "=" not in base:
                    found.add(base.rsplit(".", 1)[-1])
        return found

    def returns(self, function: str, owner: str | None) -> set[str] | None:
        """The classes the return annotations of ``function`` name (the ones in class
        ``owner`` when it has one), when every such definition names them alike."""
        key = (function, owner)
        if key not in self._returns:
            self._returns[key] = self._find_returns(function, owner)
        return self._returns[key]

    def _find_returns(self, function: str, owner: str | None) -> set[str] | None:
        rows = self.store.reader.execute(
            "SELECT file_id, line FROM symbols WHERE is_def = 1 AND folded = ? AND name = ? "
            "AND kind IN ('function', 'method')", (folded_name(function), function)).fetchall()
        parents = [class_at(self.tree(int(f)), int(n)) for f, n in rows]
        if owner is None and None in parents:  # f(): a function's, no method's (C.f, x.f)
            rows = [row for row, parent in zip(rows, parents, strict=True) if parent is None]
        elif owner is not None and owner not in parents:  # inherited: the nearest base's
            owner = self._nearest_definer(owner, {p for p in parents if p})
            rows = [row for row, parent in zip(rows, parents, strict=True)
                    if owner is not None and parent == owner] or rows
        found: list[set[str] | None] = []
        for file_id, line in rows:
            parent = class_at(self.tree(int(file_id)), int(line))
            if owner is not None and parent is not None and parent != owner \
                    and any(class_at(self.tree(int(f)), int(n)) == owner for f, n in rows):
                continue  # the owner's own definition decides
            annotation = return_annotation(self.lines(int(file_id)), int(line))
            if annotation:  # a context manager's value is what it yields, once entered
                annotation = yielded_annotation(self.lines(int(file_id)), int(line), annotation)
            classes = annotation_classes(annotation) if annotation \
                else self._returned(int(file_id), int(line))
            if classes and "Self" in classes and parent:
                classes = (classes - {"Self"}) | {parent}
            found.append(classes)
        if not found or any(classes is None for classes in found):
            return None
        first = found[0]
        return first if all(classes == first for classes in found) else None

    def _nearest_definer(self, owner: str, definers: set[str]) -> str | None:
        """The class nearest above ``owner`` among ``definers`` (the classes defining a
        method): the one its bases reach first, when only one is reached at that depth."""
        level, seen = self.bases(owner), {owner}
        for _ in range(MAX_DEPTH):
            reached = level & definers
            if reached:
                return reached.pop() if len(reached) == 1 else None
            seen |= level
            level = {base for name in level for base in self.bases(name)} - seen
        return None

    def _returned(self, file_id: int, line: int) -> set[str] | None:
        """An unannotated function's classes when every ``return`` makes one
        (``return Session()``): what a type checker infers."""
        scope = innermost(self.tree(file_id), line)
        if scope is None or scope.line != line:
            return None
        lines = self.lines(file_id)
        classes: set[str] = set()
        nested = [(child.line, child.end_line) for child in scope.children]
        for number in range(line + 1, min(scope.end_line, len(lines)) + 1):
            if any(first <= number <= last for first, last in nested):
                continue
            returned = re.match(r"\s*return\b\s*(.*)", lines[number - 1])
            if returned is None:
                continue
            made = CONSTRUCTOR.match(returned.group(1))
            if made is None or not constructs(made.group(1), self) \
                    or not returned.group(1).rstrip().endswith(")"):
                return None
            classes.add(made.group(1))
        return classes or None

    def attribute(self, owner: str, attribute: str) -> set[str] | None:
        """The classes an attribute of class ``owner`` holds, from the class's own text:
        ``self.x = Cls(...)``, ``self.x: Ann``, ``x: Ann`` in its body, or ``self.x = p``
        with ``p`` an annotated parameter of the method setting it."""
        key = (owner, attribute)
        if key not in self._attributes:
            self._attributes[key] = self._find_attribute(owner, attribute)
        return self._attributes[key]

    def _find_attribute(self, owner: str, attribute: str, depth: int = 0
                        ) -> set[str] | None:
        """The attribute's classes in ``owner``'s text, else in the classes it extends."""
        found = self._own_attribute(owner, attribute)
        if found is None or found or depth >= MAX_DEPTH:
            return found or None  # known (or unknown) in the class itself
        for base in sorted(self.bases(owner)):
            found = self._find_attribute(base, attribute, depth + 1)
            if found:
                return found
        return None

    def _in_body(self, file_id: int, first: int, number: int) -> bool:
        """Is line ``number`` in the body of the class starting at ``first`` itself, not
        in a method's (whose parameters, one a line, read like the body's annotations)?"""
        scope = innermost(self.tree(file_id), number)
        return scope is not None and scope.line == first

    def _own_attribute(self, owner: str, attribute: str) -> set[str] | None:
        """Every class assigned to the attribute in the class (None values left out); an
        empty set when the class never assigns it, None when an assignment is unknown."""
        name = re.escape(attribute)
        on_self = re.compile(rf"\bself\.{name}\s*(?::\s*(?P<ann>[^=]+?))?\s*=(?!=)\s*(?P<value>.*)")
        in_body = re.compile(rf"^\s*{name}\s*:\s*(?P<ann>[^=]+?)\s*(?:=.*)?$")
        classes: set[str] = set()
        for file_id, first, last in self.classes(owner):
            lines = self.lines(file_id)
            for number in range(first, min(last, len(lines)) + 1):
                text = lines[number - 1].split("#", 1)[0]
                found = on_self.search(text) or (in_body.match(text) if self._in_body(
                    file_id, first, number) else None)
                if not found:
                    continue
                if found["ann"]:
                    return annotation_classes(found["ann"])  # declared: that is its type
                value = (found.groupdict().get("value") or "").strip()
                if value in ("None", ""):
                    continue
                made = CONSTRUCTOR.match(value)
                handed = re.fullmatch(r"(\w+)", value)
                foreign = self.foreign(value, file_id)
                if foreign:
                    classes.add(foreign)
                elif made and constructs(made.group(1), self):
                    classes.add(made.group(1))
                elif handed:
                    typed = parameter_annotation(lines, self.tree(file_id), number,
                                                 handed.group(1))
                    if typed is None:
                        return None
                    classes |= typed
                else:
                    return None
        return classes or self._property_type(owner, attribute)

    def _property_type(self, owner: str, attribute: str) -> set[str]:
        """The classes a property of class ``owner`` returns, by its getter's annotation
        (an empty set when the class has no such property: not known here)."""
        for file_id, first, _ in self.classes(owner):
            lines = self.lines(file_id)
            body = next((scope.children for scope in self.tree(file_id)
                         if scope.line == first), [])
            for scope in body:
                if scope.name != attribute or not is_accessor(
                        lines[decorated_start(lines, scope.line) - 1:scope.line - 1], attribute):
                    continue
                annotation = return_annotation(lines, scope.line)
                return (annotation_classes(annotation) or set()) if annotation else set()
        return set()
