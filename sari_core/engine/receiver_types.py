"""What class the thing before ``.name`` is, as far as the text written around it says.

The index holds no types, but Python code often spells them: an annotation
(``env: "Environment"``, ``t.Optional[Template]``), a constructor (``s = Session()``),
``self`` in a class, an attribute set in the class (``self.environment = environment``
in an ``__init__`` whose parameter is annotated), or a call to a function whose return
annotation names a class (``env.get_template(x).render``). A receiver is followed part by
part (``self.environment.get_template(name)``) and any part the text does not tell makes
the whole receiver unknown (None): the caller then decides by other means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sari_core.engine.scopes import Scope, definition_trees, innermost
from sari_core.engine.store import IndexStore

CLASS_KINDS = ("class", "interface", "struct", "trait", "impl")
MAX_HEADER_LINES = 30  # a definition's signature may run over this many lines
# Wrappers that leave their argument's type: Optional[X] is an X (or None), and so on.
_TRANSPARENT = frozenset(("Optional", "Union", "Final", "ClassVar", "Annotated", "Type",
                          "type", "Required", "NotRequired", "ReadOnly"))
_NOT_A_CLASS = frozenset(("None", "Any", "t", "typing", "te", "typing_extensions"))
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_CONSTRUCTOR = re.compile(r"(?:\w+\.)*([A-Z]\w*)\s*\(")
_TYPE_TEXT = re.compile(r"[\w.\[\], |'\"]+\Z")


def annotation_classes(text: str) -> set[str] | None:
    """The classes an annotation names (the last part of each dotted name), looking
    through quotes, ``Optional``/``Union``/``X | None``; None if it is no plain type
    expression (a generic container is its own class: ``List[Template]`` is a ``List``)."""
    text = text.strip().strip("\"'").strip()
    if not text or not _TYPE_TEXT.match(text):
        return None
    text = text.replace('"', "").replace("'", "")
    found: set[str] = set()
    for part in _top_level(text, "|"):
        found |= _one_annotation(part.strip())
    return found - _NOT_A_CLASS or None


def _one_annotation(text: str) -> set[str]:
    head, _, rest = text.partition("[")
    outer = head.strip().rsplit(".", 1)[-1]
    if rest and outer in _TRANSPARENT:
        inner = rest.rstrip().removesuffix("]")
        arguments = _top_level(inner, ",")
        if outer == "Annotated":
            arguments = arguments[:1]
        return {name for argument in arguments for name in _one_annotation(argument.strip())}
    return {outer} if _IDENTIFIER.fullmatch(outer) else set()


def _top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def receiver_chain(before: str) -> list[str]:
    """The parts of the expression ahead of the last dot of ``before``:
    ``x = self.env.get_template(name).`` -> ``['self', 'env', 'get_template()']``
    (a call's arguments dropped, its parentheses kept); [] when it is not a plain chain."""
    text = before.rstrip()
    text = text[:-1].rstrip() if text.endswith(".") else text
    index = len(text)
    while index > 0:
        char = text[index - 1]
        if char in ")]":
            depth, index = 0, index
            while index > 0:
                depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(text[index - 1], 0)
                index -= 1
                if depth == 0:
                    break
            continue
        if char.isalnum() or char in "_.":
            index -= 1
            continue
        break
    chain = text[index:]
    parts = []
    for part in _top_level(chain, "."):
        name = _IDENTIFIER.match(part.strip())
        if name is None:
            return []
        called = part.rstrip().endswith(")")
        parts.append(name.group() + ("()" if called else ""))
    return parts if all(parts) else []


@dataclass
class Definitions:
    """Reads definitions' text out of the index, kept per file while one query runs."""

    store: IndexStore

    def __post_init__(self) -> None:
        self._lines: dict[int, list[str]] = {}
        self._trees: dict[int, list[Scope]] = {}
        self._classes: dict[str, list[tuple[int, int, int]]] = {}
        self._returns: dict[tuple[str, str | None], set[str] | None] = {}
        self._attributes: dict[tuple[str, str], set[str] | None] = {}

    def lines(self, file_id: int) -> list[str]:
        if file_id not in self._lines:
            self._lines[file_id] = (self.store.text_of(file_id) or "").split("\n")
        return self._lines[file_id]

    def tree(self, file_id: int) -> list[Scope]:
        if file_id not in self._trees:
            self._trees[file_id] = definition_trees(self.store, [file_id]).get(file_id, [])
        return self._trees[file_id]

    def classes(self, name: str) -> list[tuple[int, int, int]]:
        """(file id, first line, last line) of each class called ``name``."""
        if name not in self._classes:
            marks = ",".join("?" * len(CLASS_KINDS))
            self._classes[name] = [(int(f), int(a), int(b)) for f, a, b in self.store.reader.execute(
                "SELECT file_id, line, end_line FROM symbols WHERE is_def = 1 AND name = ? "
                f"AND kind IN ({marks})", (name, *CLASS_KINDS))]
        return self._classes[name]

    def is_class(self, name: str) -> bool:
        return bool(self.classes(name))

    def bases(self, owner: str) -> set[str]:
        """The classes ``owner`` names as its bases (the last part of each dotted name)."""
        found: set[str] = set()
        for file_id, first, _ in self.classes(owner):
            header = _header(self.lines(file_id), first)
            opened = header.find("(")
            if opened < 0 or not header.lstrip().startswith("class"):
                continue
            for part in _top_level(header[opened + 1:header.rfind(")")], ","):
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
            "SELECT file_id, line FROM symbols WHERE is_def = 1 AND name = ? AND kind IN "
            "('function', 'method')", (function,)).fetchall()
        found: list[set[str] | None] = []
        for file_id, line in rows:
            parent = _class_holding(self.tree(int(file_id)), int(line))
            if owner is not None and parent is not None and parent != owner \
                    and any(_class_holding(self.tree(int(f)), int(n)) == owner for f, n in rows):
                continue  # the owner's own definition decides
            annotation = _return_annotation(self.lines(int(file_id)), int(line))
            classes = annotation_classes(annotation) if annotation else None
            if classes and "Self" in classes and parent:
                classes = (classes - {"Self"}) | {parent}
            found.append(classes)
        if not found or any(classes is None for classes in found):
            return None
        first = found[0]
        return first if all(classes == first for classes in found) else None

    def attribute(self, owner: str, attribute: str) -> set[str] | None:
        """The classes an attribute of class ``owner`` holds, from the class's own text:
        ``self.x = Cls(...)``, ``self.x: Ann``, ``x: Ann`` in its body, or ``self.x = p``
        with ``p`` an annotated parameter of the method setting it."""
        key = (owner, attribute)
        if key not in self._attributes:
            self._attributes[key] = self._find_attribute(owner, attribute)
        return self._attributes[key]

    def _find_attribute(self, owner: str, attribute: str) -> set[str] | None:
        name = re.escape(attribute)
        on_self = re.compile(rf"\bself\.{name}\s*(?::\s*(?P<ann>[^=]+?))?\s*=(?!=)\s*(?P<value>.*)")
        in_body = re.compile(rf"^\s*{name}\s*:\s*(?P<ann>[^=]+?)\s*(?:=.*)?$")
        for file_id, first, last in self.classes(owner):
            lines = self.lines(file_id)
            for number in range(first, min(last, len(lines)) + 1):
                text = lines[number - 1]
                found = on_self.search(text) or in_body.match(text)
                if not found:
                    continue
                if found["ann"]:
                    return annotation_classes(found["ann"])
                value = found.groupdict().get("value") or ""
                made = re.match(r"(?:\w+\.)*([A-Z]\w*)\s*\(", value)
                if made and self.is_class(made.group(1)):
                    return {made.group(1)}
                handed = re.fullmatch(r"(\w+)\s*", value)
                if handed:
                    return parameter_annotation(lines, self.tree(file_id), number,
                                                handed.group(1))
        return None


_IMPORT_AS = re.compile(r"^\s*import\s+(?P<names>[\w., ]+)")
_FROM_IMPORT = re.compile(r"^\s*from\s+(?P<module>[\w.]+)\s+import\s+(?P<names>[\w., ()]+)")


def module_aliases(lines: list[str]) -> dict[str, str]:
    """What each name a file imports stands for, as a dotted path: ``import a.b as k``
    -> ``{k: a.b}``, ``import a.b`` -> ``{a: a}``, ``from . import nodes`` ->
    ``{nodes: .nodes}``, ``from a import b as c`` -> ``{c: a.b}``."""
    found: dict[str, str] = {}
    for line in lines:
        if "import" not in line:
            continue
        plain, dotted = _IMPORT_AS.match(line), _FROM_IMPORT.match(line)
        if dotted:
            base = dotted["module"]
            for part in dotted["names"].strip("() ").split(","):
                name, _, alias = part.strip().partition(" as ")
                if name.strip():
                    joiner = "" if base.endswith(".") else "."
                    found[(alias or name).strip()] = f"{base}{joiner}{name.strip()}"
        elif plain:
            for part in plain["names"].split(","):
                name, _, alias = part.strip().partition(" as ")
                if name.strip():
                    key = alias.strip() or name.strip().split(".", 1)[0]
                    found[key] = name.strip() if alias.strip() else key
    return found


def _constructs(callee: str, definitions: Definitions) -> bool:
    """Is calling ``callee`` making an instance: an indexed class, or a CapWords name (a
    class by Python's naming convention, ``threading.Event()``, whose methods are its own)?"""
    return definitions.is_class(callee) or (callee[:1].isupper() and not callee.isupper())


def parameter_annotation(lines: list[str], tree: list[Scope], line: int, name: str
                         ) -> set[str] | None:
    """The classes the annotation of parameter ``name`` of the function holding ``line``
    names."""
    scope = innermost(tree, line)
    if scope is None or scope.kind not in ("function", "method"):
        return None
    header = _header(lines, scope.line)
    found = re.search(rf"[(,]\s*\**{re.escape(name)}\s*:\s*", header)
    if not found:
        return None
    rest = header[found.end():]
    depth, end = 0, len(rest)
    for index, char in enumerate(rest):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if depth < 0 or (depth == 0 and char in ",="):
            end = index
            break
    return annotation_classes(rest[:end])


def _header(lines: list[str], line: int) -> str:
    """A definition's signature, from its ``def`` line to the colon ending it."""
    text = []
    for number in range(line, min(line + MAX_HEADER_LINES, len(lines) + 1)):
        text.append(lines[number - 1].split("#", 1)[0].strip())
        if re.search(r"\)\s*(->.*)?:\s*$", text[-1]):
            break
    return " ".join(text)


def _return_annotation(lines: list[str], line: int) -> str | None:
    header = _header(lines, line)
    found = re.search(r"\)\s*->\s*(.+?):\s*$", header)
    return found.group(1) if found else None


def _class_holding(tree: list[Scope], line: int) -> str | None:
    """The innermost class whose lines hold ``line``."""
    found, level = None, tree
    while True:
        inside = [scope for scope in level if scope.line <= line <= scope.end_line]
        if not inside:
            return found
        scope = min(inside, key=lambda s: s.end_line - s.line)
        if scope.kind in CLASS_KINDS and scope.line != line:
            found = scope.name
        level = scope.children


class_at = _class_holding
MAX_DEPTH = 4  # x = y.f(); y = z.g(); ... followed this far


class ReceiverTypes(Definitions):
    """The classes a receiver chain (:func:`receiver_chain`) holds at one line, or None."""

    def of(self, chain: list[str], file_id: int, line: int, depth: int = 0
           ) -> set[str] | None:
        if not chain or depth > MAX_DEPTH:
            return None
        head, rest = chain[0], chain[1:]
        current: set[str] | None
        if head in ("self", "cls"):
            owner = class_at(self.tree(file_id), line)
            current = {owner} if owner else None
        elif head.endswith("()"):
            callee = head[:-2]
            current = {callee} if _constructs(callee, self) else self.returns(callee, None)
        else:
            current = self.variable(head, file_id, line, depth)
            if current is None and self.is_class(head):
                current = {head}  # the class itself: Session.send(session, ...)
        for part in rest:
            if part.endswith("()") and _constructs(part[:-2], self):
                current = {part[:-2]}  # module.Class(...)
                continue
            if current is None:
                return None
            found: set[str] = set()
            for owner in current:
                classes = self.returns(part[:-2], owner) if part.endswith("()") \
                    else self.attribute(owner, part)
                if classes is None:
                    return None
                found |= classes
            current = found
        return current or None

    def variable(self, name: str, file_id: int, line: int, depth: int) -> set[str] | None:
        """The classes a local variable or parameter holds at ``line``, from the function
        holding it: an annotation, ``x = <chain>``, ``with <chain> as x``."""
        lines, tree = self.lines(file_id), self.tree(file_id)
        scope = innermost(tree, line)
        while scope is not None and scope.kind in CLASS_KINDS:
            scope = None  # a class body: its names are attributes, not variables
        first = scope.line if scope is not None else max(1, line - 50)
        escaped = re.escape(name)
        assigned = re.compile(
            rf"(?<![\w.]){escaped}\s*(?::\s*(?P<ann>[^=]+?))?\s*=(?!=)\s*(?P<value>.+)")
        bound = re.compile(rf"\bwith\s+(?P<value>.+?)\s+as\s+{escaped}\b")
        looped = re.compile(rf"\bfor\s+{escaped}\b")
        # the use's own line binds the name only after it is read (x = x.parent())
        for number in range(min(line - 1, len(lines)), first - 1, -1):
            text = lines[number - 1].split("#", 1)[0]
            if number == first and scope is not None:
                return parameter_annotation(lines, tree, line, name)
            found = bound.search(text) or assigned.search(text)
            if found is None:
                if looped.search(text):
                    return None
                continue
            if found.groupdict().get("ann"):
                return annotation_classes(found["ann"])
            value = found["value"].strip().rstrip(":").strip()
            made = _CONSTRUCTOR.match(value)
            if made and not value.endswith(")"):  # Class(... on lines that follow
                return {made.group(1)}
            if value.endswith((")", "]")) or _IDENTIFIER.fullmatch(value.replace(".", "_")):
                return self.of(receiver_chain(value + "."), file_id, number, depth + 1) \
                    if receiver_chain(value + ".") and receiver_chain(value + ".") != [name] \
                    else None
            return None
        return None
