"""The definitions of a file as a tree: what encloses a line, and the file's outline.

Built from ``(name, kind, line, end_line)`` rows alone, so the index's workers (which cut
a file's words by its definitions) use it without loading the index's store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sari_core.outline_rows import row_text


@dataclass
class Scope:
    """One definition and the definitions nested in it."""

    name: str
    kind: str
    line: int
    end_line: int
    qualified: str = ""
    children: list[Scope] = field(default_factory=list)


def build_tree(rows: Iterable[tuple[str, str, int, int]]) -> list[Scope]:
    """Nest ``(name, kind, line, end_line)`` definitions by their line ranges."""
    roots: list[Scope] = []
    stack: list[Scope] = []
    for name, kind, line, end_line in sorted(rows, key=lambda row: (row[2], -row[3])):
        while stack and (line > stack[-1].end_line or not _holds(stack[-1].kind, kind)):
            stack.pop()
        parent = stack[-1] if stack and end_line <= stack[-1].end_line else None
        scope = Scope(name, kind, line, end_line,
                      f"{parent.qualified}.{name}" if parent else name)
        (parent.children if parent else roots).append(scope)
        stack.append(scope)
    return roots


# Kinds naming a value: ``var a, b int`` or ``{ x: number; run(): void }`` on one line are
# siblings, not one inside the other. A value holds only its object's keys.
_VALUE_KINDS = frozenset(("constant", "variable", "field", "property"))


def _holds(parent: str, child: str) -> bool:
    return parent not in _VALUE_KINDS or (child == "property" and parent != "property")


def innermost(tree: Sequence[Scope], line: int) -> Scope | None:
    """The deepest definition whose lines contain ``line``."""
    found = None
    level = tree
    while True:
        inside = [scope for scope in level if scope.line <= line <= scope.end_line]
        if not inside:
            return found
        found = min(inside, key=lambda scope: scope.end_line - scope.line)
        level = found.children


def enclosing(tree: Sequence[Scope], scope: Scope) -> Scope | None:
    """The scope directly holding ``scope`` (None at a module's top)."""
    level: Sequence[Scope] = tree
    parent = None
    while True:
        holder = next((child for child in level if child.line <= scope.line <= child.end_line
                       and child is not scope), None)
        if holder is None:
            return parent if any(child is scope for child in level) else None
        parent, level = holder, holder.children


def outline_lines(tree: Sequence[Scope], depth: int, max_depth: int) -> list[str]:
    """``kind name first-last`` per definition, indented by nesting, down to ``max_depth``."""
    out = []
    for scope in tree:
        out.append(row_text(scope.kind, scope.name, scope.line, scope.end_line, depth))
        if depth + 1 < max_depth:
            out.extend(outline_lines(scope.children, depth + 1, max_depth))
    return out
