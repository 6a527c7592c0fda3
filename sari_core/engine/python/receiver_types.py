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

from sari_core.engine.index.scope_tree import Scope, enclosing, innermost
from sari_core.engine.python.definitions import MAX_DEPTH, Definitions, constructs
from sari_core.engine.python.element_types import (
    INDEXED,
    ContainerAnnotations,
    loop_items,
    subscript,
    unpacked_position,
)
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
)
from sari_core.engine.python.type_aliases import expand_aliases
from sari_core.engine.python.with_statements import with_statement


class ReceiverTypes(ContainerAnnotations, Definitions):
    """The classes a receiver chain (:func:`receiver_chain`) holds at one line, or None."""

    def of(self, chain: list[str], file_id: int, line: int, depth: int = 0
           ) -> set[str] | None:
        if depth == 0:  # the judges of a name's definitions ask about the same uses
            key = (tuple(chain), file_id, line)
            known = self.__dict__.setdefault("_receivers", {})
            if key not in known:
                known[key] = self._of(chain, file_id, line, 0)
            found = known[key]
            return None if found is None else set(found)
        return self._of(chain, file_id, line, depth)

    def _of(self, chain: list[str], file_id: int, line: int, depth: int
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
