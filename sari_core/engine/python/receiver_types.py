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

from sari_core.engine.index.names import folded_name
from sari_core.engine.index.scope_tree import Scope, enclosing, innermost
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.decorated import is_accessor, yielded_annotation
from sari_core.engine.python.decorators import decorated_start
from sari_core.engine.python.element_types import (
    INDEXED,
    ContainerAnnotations,
    constructs,
    loop_items,
    subscript,
    unpacked_position,
)
from sari_core.engine.python.import_origins import ImportOrigins
from sari_core.engine.python.isinstance_checks import narrowed, narrowed_in_condition
from sari_core.engine.python.overloads import overload_returns
from sari_core.engine.python.python_text import (
    CLASS_KINDS,
    CONSTRUCTOR,
    IDENTIFIER,
    annotation_classes,
    class_at,
    closed,
    is_parameter,
    parameter_annotation,
    receiver_chain,
    return_annotation,
    signature,
    top_level,
)
from sari_core.engine.python.scopes import definition_trees
from sari_core.engine.python.type_aliases import expand_aliases
from sari_core.engine.python.with_statements import with_statement

MAX_DEPTH = 4  # x = y.f(); y = z.g(); ... followed this far
_QUALIFIED_CONSTRUCTOR = re.compile(r"(?P<module>[A-Za-z_]\w*)\.(?:\w+\.)*(?P<cls>[A-Z]\w*)\s*\(")


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


class ReceiverTypes(ContainerAnnotations, Definitions):
    """The classes a receiver chain (:func:`receiver_chain`) holds at one line, or None."""

    def of(self, chain: list[str], file_id: int, line: int, depth: int = 0
           ) -> set[str] | None:
        if not chain or depth > MAX_DEPTH:
            return None
        cut = max((index for index, part in enumerate(chain) if subscript(part)), default=None)
        if cut is not None:  # self.frames[0].x: the element type of frames' annotation
            name, position = subscript(chain[cut]) or ("", None)
            container = [*chain[:cut], name]
            current = self.element_classes(container, file_id, line, depth + 1, INDEXED,
                                           position) \
                or self.through_protocol(container, file_id, line, depth, INDEXED)
            return self._along(current, chain[cut + 1:])
        head, rest = chain[0], chain[1:]
        current: set[str] | None
        if head in ("self", "cls"):
            owner = class_at(self.tree(file_id), line)
            current = {owner} if owner else None
        elif head.endswith("()"):
            callee = head[:-2]
            current = {callee} if constructs(callee, self) else self.returns(callee, None)
        else:
            current = self.variable(head, file_id, line, depth)
            if current is None and self.is_class(head):
                current = {head}  # the class itself: Session.send(session, ...)
            elif current is None and rest[:1] and rest[0].endswith("()") \
                    and not constructs(rest[0][:-2], self) \
                    and self._workspace_module(head, file_id):  # module.function()
                current, rest = self.returns(rest[0][:-2], None), rest[1:]
        return self._along(expand_aliases(self, current, self._aliases_of), rest)

    def _along(self, current: set[str] | None, rest: list[str]) -> set[str] | None:
        """The classes at the end of ``rest``, from ``current``: each part an attribute
        or a method's return of the classes before it."""
        for part in rest:
            if part.endswith("()") and constructs(part[:-2], self):
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
            current = expand_aliases(self, found, self._aliases_of)
        return current or None

    def variable(self, name: str, file_id: int, line: int, depth: int,
                 within: Scope | None = None, conditions: bool = True) -> set[str] | None:
        """The classes a local variable or parameter holds at ``line``, from the function
        holding it (an annotation, ``x = <chain>``, ``with <chain> as x``, ``for x in
        A(), B()``), else from the functions enclosing it (a closure reads theirs), else
        from the module's one assignment of that name."""
        lines, tree = self.lines(file_id), self.tree(file_id)
        scope = within or innermost(tree, line)
        while scope is not None and scope.kind in CLASS_KINDS:
            scope = None  # a class body: its names are attributes, not variables
        first = scope.line if scope is not None else max(1, line - 50)
        escaped = re.escape(name)
        assigned = re.compile(
            rf"(?<![\w.]){escaped}\s*(?::\s*(?P<ann>[^=]+?))?\s*=(?!=)\s*(?P<value>.+)")
        bound = re.compile(rf"\bwith\s+(?P<value>.+?)\s+as\s+{escaped}\b")
        looped = re.compile(rf"\bfor\s+{escaped}\s+in\s+(?P<items>.+?):?\s*$")
        # the use's own line binds the name only after it is read (x = x.parent())
        own = loop_items(lines[line - 1].split("#", 1)[0], name) if line <= len(lines) else None
        if own is not None:  # [f.send() for f in frames]: bound on the use's own line
            return self._iterated(own, file_id, line, depth)
        condition = narrowed_in_condition(lines, line, name) if conditions else None
        if condition is not None:  # isinstance(v, Table) and v.value: a Table there
            return narrowed(self.store, condition[0], self.variable(
                name, file_id, condition[1], depth + 1, within=scope, conditions=False))
        floor = len(lines[line - 1]) - len(lines[line - 1].lstrip()) if line <= len(lines) else 0
        for number in range(min(line - 1, len(lines)), first - 1, -1):
            text = lines[number - 1].split("#", 1)[0]
            checked = re.match(rf"(\s*)(?:assert|if|elif)\s+isinstance\(\s*{escaped}\s*,\s*"
                               r"([\w.]+)\s*\)\s*(:?)\s*$", text)
            outside = len(text) - len(text.lstrip()) if text.strip() else floor
            if checked and (not checked.group(3) or outside < floor):
                # assert isinstance(x, Table), or in the block of if isinstance(x, Table):
                known = self.variable(name, file_id, number, depth + 1, within=scope)
                return narrowed(self.store, checked.group(2).rsplit(".", 1)[-1], known)
            floor = min(floor, outside)  # a line this far out ends the blocks opened above
            position = unpacked_position(text, name)
            if position is not None:  # a, b = pair(): the element at its position
                value = closed(position[1], lines, number)
                return self.element_classes(receiver_chain(value + "."), file_id, number,
                                            depth + 1, INDEXED, position[0]) \
                    if value.endswith((")", "]")) else None
            if number == first and scope is not None:
                if is_parameter(lines, scope.line, name):
                    return parameter_annotation(lines, tree, scope.line, name)
                break
            found = bound.search(text) or assigned.search(text) \
                or bound.search(with_statement(lines, number, name))
            if found is None:
                loop = looped.search(text)
                if loop:
                    return self._made_each(loop["items"]) \
                        or self._iterated(loop["items"], file_id, number, depth)
                if re.search(rf"(?<![\w.]){escaped}\s*(?:[-+*/%@&|^]|//|\*\*|<<|>>)=", text):
                    return None  # i += 1: what an operator returns, the text does not say
                continue
            return self._assigned(found, name, file_id, number, depth)
        if scope is None:
            return None
        outer = enclosing(tree, scope)
        if outer is not None and outer.kind in ("function", "method") and depth <= MAX_DEPTH:
            return self.variable(name, file_id, scope.line, depth + 1, within=outer)
        found_at = self._top_assignments(file_id).get(name, [])
        if len(found_at) != 1:
            return None  # never or several times assigned at the top: not one known value
        number, found = found_at[0]
        return self._assigned(found, name, file_id, number, depth)

    def _assigned(self, found: re.Match[str], name: str, file_id: int, number: int,
                  depth: int) -> set[str] | None:
        if found.groupdict().get("ann"):
            return annotation_classes(found["ann"])
        value = found["value"].strip().rstrip(":").strip()
        foreign = self.foreign(value, file_id)
        if foreign:
            return {foreign}
        made = CONSTRUCTOR.match(value)
        if made and not value.endswith(")"):  # Class(... on lines that follow
            return {made.group(1)}
        value = closed(value, self.lines(file_id), number)
        chosen = overload_returns(self, value)
        if chosen is not None:  # x = item(34): the signature its argument chooses
            return chosen
        chain = receiver_chain(value + ".")
        if (value.endswith((")", "]")) or IDENTIFIER.fullmatch(value.replace(".", "_"))) \
                and chain and chain != [name]:
            return self.of(chain, file_id, number, depth + 1)
        return None
