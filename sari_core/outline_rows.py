"""The rows of an outline, both ways: how ``read mode=outline`` writes a definition, and the
value a policy reads back from such a row.

A row is ``kind name first-last`` (``kind name first`` for a one-line definition), indented
two spaces per level of nesting. The engine writes rows with :func:`row_text`; a plugin that
is handed an outline's text (through ``Session.probe_read``) reads them with
:func:`parse_row`, so the format lives in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

INDENT = "  "


@dataclass(frozen=True)
class OutlineRow:
    """One definition of an outline.

    :ivar kind: ``function``, ``class``, ``method``, ``constant``, ...
    :ivar name: the definition's own name.
    :ivar first: its first line.
    :ivar last: its last line (``first`` for a one-line definition).
    :ivar depth: its nesting level (0: the module's own).
    """

    kind: str
    name: str
    first: int
    last: int
    depth: int = 0

    def overlaps(self, first: int, last: int) -> bool:
        """Does the definition reach into lines ``first..last``?"""
        return self.first <= last and self.last >= first


def row_text(kind: str, name: str, first: int, last: int, depth: int = 0) -> str:
    """The outline row of one definition (without its line end)."""
    lines = str(first) if first == last else f"{first}-{last}"
    return f"{INDENT * depth}{kind} {name} {lines}"


def parse_row(row: str) -> OutlineRow | None:
    """The definition an outline row names, or None for a row that is not one (a folder
    outline's file path, an empty line)."""
    body = row.rstrip("\n")
    stripped = body.lstrip(" ")
    parts = stripped.split()
    if len(parts) < 3:
        return None
    first, _, last = parts[-1].partition("-")
    if not first.isdigit() or (last and not last.isdigit()):
        return None
    depth = (len(body) - len(stripped)) // len(INDENT)
    return OutlineRow(parts[0], parts[-2], int(first), int(last or first), depth)
