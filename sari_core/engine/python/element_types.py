"""What an element of a container holds, as far as the container's annotation says.

A loop variable (``for frame in self.frames``, ``[f.send() for f in frames]``), a
subscript (``self.frames[0].send()``, ``handlers[name].close()``) and a name unpacked
from a call (``reader, writer = open_pair()``) carry no annotation of their own: their
class is the element type of the annotation the container was written with
(``frames: list[Frame]``, ``-> tuple[Reader, Writer]``). The annotation is found the way
a receiver's class is (a parameter, an annotated local, an attribute of the class, a
function's return annotation); when none is written, or it is no container the rules
below know, the element is unknown (None) and the caller decides by other means.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sari_core.engine.index.scope_tree import innermost
from sari_core.engine.python.definitions import Definitions, constructs
from sari_core.engine.python.python_text import (
    CONSTRUCTOR,
    annotation_classes,
    class_at,
    parameter_annotation_text,
    receiver_chain,
    return_annotation,
    top_level,
)

ITERATED = "iterated"  # for x in c: what iterating yields
INDEXED = "indexed"  # c[key]: what a subscript gives
# containers whose one (or first) argument is what iterating or indexing them gives
_SEQUENCES = frozenset((
    "list", "List", "Sequence", "MutableSequence", "deque", "Deque", "Collection"))
_ITERABLES = frozenset((
    "Iterable", "Iterator", "AsyncIterable", "AsyncIterator", "Generator",
    "AsyncGenerator", "set", "Set", "frozenset", "FrozenSet", "AbstractSet",
    "MutableSet", "KeysView", "ValuesView"))
_MAPPINGS = frozenset((
    "dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict",
    "defaultdict", "ChainMap", "WeakValueDictionary", "WeakKeyDictionary"))
_TUPLES = frozenset(("tuple", "Tuple"))
_WRAPPERS = frozenset(("Optional", "Final", "ClassVar", "Annotated"))


def element_annotation(annotation: str, how: str, position: int | None = None) -> str | None:
    """The annotation of an element of a container annotated ``annotation``: iterated
    (``list[A]``, ``Iterator[A]``, a mapping's keys), indexed (``list[A]``, a mapping's
    values, ``tuple[A, B]`` at ``position``), None when the annotation does not say."""
    text = annotation.strip().strip("\"'").strip()
    parts = [part.strip() for part in top_level(text, "|") if part.strip() != "None"]
    if len(parts) != 1:
        return None
    head, _, rest = parts[0].partition("[")
    outer = head.strip().rsplit(".", 1)[-1]
    if not rest.endswith("]"):
        return None
    arguments = [argument.strip() for argument in top_level(rest[:-1], ",")]
    if outer in _WRAPPERS:
        return element_annotation(arguments[0], how, position)
    if outer in _SEQUENCES or (outer in _ITERABLES and how == ITERATED):
        return arguments[0]
    if outer in _MAPPINGS and len(arguments) == 2:
        return arguments[0] if how == ITERATED else arguments[1]
    if outer in _TUPLES:
        if len(arguments) == 2 and arguments[1] == "...":
            return arguments[0]  # tuple[A, ...]: every element an A
        if position is not None and -len(arguments) <= position < len(arguments):
            return arguments[position]
    return None


def subscript(part: str) -> tuple[str, int | None] | None:
    """A receiver chain's subscripted part (``frames[0]``, ``handlers[]``): the name and
    the position written (None for a key); None for any other part."""
    found = re.fullmatch(r"(\w+)\[(-?\d*)\]", part)
    if found is None:
        return None
    return found.group(1), int(found.group(2)) if found.group(2) else None


def loop_items(text: str, name: str) -> str | None:
    """The items a comprehension on ``text`` binds ``name`` to (``for f in frames]``)."""
    found = re.search(rf"\bfor\s+{re.escape(name)}\s+in\s+", text)
    if found is None or text.lstrip().startswith(("for ", "async ")):
        return None
    rest, depth = text[found.end():], 0
    for index, char in enumerate(rest):
        depth += {"[": 1, "(": 1, "{": 1, "]": -1, ")": -1, "}": -1}.get(char, 0)
        if depth < 0 or (depth == 0 and re.match(r"\s+if\b", rest[index:])):
            return rest[:index]  # the bracket the comprehension closes, or its condition
    return None


def unpacked_position(text: str, name: str) -> tuple[int, str] | None:
    """``a, b = value`` binding ``name``: its position among the targets and the value."""
    found = re.match(r"\s*\(?(?P<targets>[\w\s,]+,[\w\s,]*)\)?\s*=(?!=)\s*(?P<value>.+)", text)
    if found is None:
        return None
    targets = [target.strip() for target in found["targets"].split(",") if target.strip()]
    return (targets.index(name), found["value"].strip()) if name in targets else None


class ContainerAnnotations(Definitions):
    """The annotation text a receiver chain's last part was written with (a mixin of
    the receiver reader, whose ``of`` types the chain ahead of the last part)."""

    if TYPE_CHECKING:  # the reader this is mixed into (ReceiverTypes) defines it
        def of(self, chain: list[str], file_id: int, line: int, depth: int = 0
               ) -> set[str] | None: ...

    def annotation_text(self, chain: list[str], file_id: int, line: int, depth: int
                        ) -> list[str] | None:
        """Every annotation the chain's value may have been written with, or None."""
        if not chain or depth > 4:
            return None
        last = chain[-1]
        indexed = subscript(last)
        if indexed is not None:  # pairs[i]: the element of pairs' annotation
            texts = self.annotation_text([*chain[:-1], indexed[0]], file_id, line, depth + 1)
            elements = [element_annotation(text, INDEXED, indexed[1]) for text in texts or []]
            return [e for e in elements if e] if elements and all(elements) else None
        if len(chain) == 1:
            if last.endswith("()"):
                return self._returns_text(last[:-2], None)
            return self._variable_text(last, file_id, line, depth)
        owners = self.of(chain[:-1], file_id, line, depth + 1)
        if not owners:
            return None
        found: list[str] = []
        for owner in sorted(owners):
            texts = self._returns_text(last[:-2], owner) if last.endswith("()") \
                else self._attribute_text(owner, last)
            if not texts:
                return None
            found += texts
        return found

    def _variable_text(self, name: str, file_id: int, line: int, depth: int
                       ) -> list[str] | None:
        lines, tree = self.lines(file_id), self.tree(file_id)
        scope = innermost(tree, line)
        first = scope.line if scope is not None else max(1, line - 50)
        escaped = re.escape(name)
        annotated = re.compile(rf"(?<![\w.]){escaped}\s*:\s*(?P<ann>[^=]+?)\s*(?:=(?!=).*)?$")
        assigned = re.compile(rf"^\s*{escaped}\s*=(?!=)\s*(?P<value>[\w.()\[\]]+)\s*$")
        for number in range(min(line - 1, len(lines)), first, -1):
            text = lines[number - 1].split("#", 1)[0]
            found = annotated.search(text)
            if found:
                return [found["ann"]]
            found = assigned.match(text)
            if found:  # frames = self.frames: the chain's annotation
                chain = receiver_chain(found["value"] + ".")
                return self.annotation_text(chain, file_id, number, depth + 1) \
                    if chain and chain != [name] else None
            if re.search(rf"(?<![\w.]){escaped}\s*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)", text):
                return None  # bound some other way: not known here
        if scope is not None and scope.kind in ("function", "method"):
            text = parameter_annotation_text(lines, tree, line, name)
            return [text] if text else None
        return None

    def _attribute_text(self, owner: str, attribute: str) -> list[str] | None:
        """``self.x: Ann = ...`` or ``x: Ann`` in the class body (the class's bases'
        too), else a property's return annotation."""
        name = re.escape(attribute)
        on_self = re.compile(rf"\bself\.{name}\s*:\s*(?P<ann>[^=]+?)\s*(?:=(?!=).*)?$")
        in_body = re.compile(rf"^\s*{name}\s*:\s*(?P<ann>[^=]+?)\s*(?:=(?!=).*)?$")
        seen, level = {owner}, [owner]
        for _ in range(4):
            for cls in level:
                for file_id, first, last in self.classes(cls):
                    lines = self.lines(file_id)
                    for number in range(first + 1, min(last, len(lines)) + 1):
                        text = lines[number - 1].split("#", 1)[0]
                        found = on_self.search(text) or (in_body.match(text) if self._in_body(
                            file_id, first, number) else None)
                        if found:
                            return [found["ann"]]
                    getter = self._returns_text(attribute, cls)
                    if getter:
                        return getter
            level = sorted({base for cls in level
                            for base in self.bases(cls)} - seen)
            seen |= set(level)
        return None

    def _returns_text(self, function: str, owner: str | None) -> list[str] | None:
        """The return annotations of ``function`` (the ones in class ``owner``)."""
        texts = []
        for file_id, line in self.store.reader.execute(
                "SELECT file_id, line FROM symbols WHERE is_def = 1 AND name = ? "
                "AND kind IN ('function', 'method')", (function,)).fetchall():
            if owner is not None and class_at(self.tree(int(file_id)), int(line)) != owner:
                continue
            text = return_annotation(self.lines(int(file_id)), int(line))
            if text is None:
                return None
            texts.append(text)
        return texts or None

    def element_classes(self, chain: list[str], file_id: int, line: int, depth: int,
                        how: str, position: int | None = None) -> set[str] | None:
        """The classes an element of the chain's container holds, or None."""
        texts = self.annotation_text(chain, file_id, line, depth)
        if not texts:
            return None
        found: set[str] = set()
        for text in texts:
            element = element_annotation(text, how, position)
            classes = annotation_classes(element) if element else None
            if not classes:
                return None
            found |= classes
        return found

    def _iterated(self, items: str, file_id: int, line: int, depth: int) -> set[str] | None:
        """What iterating ``items`` (``self.frames``, ``reader.frames()``) yields, by the
        element type of the container's annotation."""
        items = items.strip().rstrip(":").strip()
        chain = receiver_chain(items + ".")
        if not chain or not re.fullmatch(r"[\w.\[\]()\s,'\"-]+", items):
            return None
        return self.element_classes(chain, file_id, line, depth + 1, ITERATED) \
            or self.through_protocol(chain, file_id, line, depth, ITERATED)

    def through_protocol(self, chain: list[str], file_id: int, line: int, depth: int,
                         how: str) -> set[str] | None:
        """A workspace class's own element type: what its ``__getitem__`` returns (a
        subscript), what its ``__iter__`` yields (a loop), for the classes the chain holds."""
        owners = self.of(chain, file_id, line, depth + 1)
        if not owners:
            return None
        found: set[str] = set()
        for owner in owners:
            if how == INDEXED:
                classes = self.returns("__getitem__", owner)
            else:
                texts = self._returns_text("__iter__", owner) or []
                elements = [element_annotation(text, ITERATED) for text in texts]
                classes = set().union(*(annotation_classes(e) or {""} for e in elements
                                        if e)) if elements and all(elements) else None
            if not classes or "" in classes:
                return None
            found |= classes
        return found

    def _made_each(self, items: str) -> set[str] | None:
        """``A(), B()`` (a loop's items): the classes made, when each item makes one."""
        classes = set()
        items = items.strip()
        if items[:1] in "([" and len(top_level(items, ",")) == 1:
            items = items[1:-1]  # (A(), B()) or [A(), B()]
        for item in top_level(items, ","):
            made = CONSTRUCTOR.match(item.strip())
            if made is None or not item.strip().endswith(")") \
                    or not constructs(made.group(1), self):
                return None
            classes.add(made.group(1))
        return classes or None
