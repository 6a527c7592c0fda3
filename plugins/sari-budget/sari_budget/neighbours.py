"""The definitions of the same file that a matched definition calls, or that call it.

An agent that asked for a whole file and was shown the definition its search matched
usually needs next the helpers that definition calls and the code that calls it; when they
sit near it in the same file, one window can show them too, and a second read (a whole
turn) is saved. Found from the file's outline (names and line ranges) and its text: a
definition is related when it is called in the matched one, or the matched one in it (a
method as ``self.name(``, a function or class by its bare name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sari_core import ReadCall, Session, parse_row

MAX_CHARS = 2_000_000  # the probe reads the lines around the definition, whatever their width


@dataclass(frozen=True)
class Definition:
    """One outline entry: its kind, its name and its lines."""

    kind: str
    name: str
    first: int
    last: int

    def called_in(self, text: str) -> bool:
        """Is this definition called in ``text``? A method as ``self.name(`` or
        ``cls.name(``, anything else by its bare name (``name(``, not ``x.name(``): a call
        of some other object's ``close()`` is not a call of this file's ``close``."""
        name = re.escape(self.name)
        pattern = rf"\b(?:self|cls)\.{name}\s*\(" if self.kind == "method" \
            else rf"(?<![\w.]){name}\s*\("
        return re.search(pattern, text) is not None


def _definitions(outline: str) -> list[Definition]:
    found: list[Definition] = []
    for row in map(parse_row, outline.splitlines()):
        # Constants are data and a one-line definition no body to show; dunder methods are
        # called by the language, not by name.
        if row is None or row.kind == "constant" or row.first == row.last \
                or row.name.startswith("__"):
            continue
        found.append(Definition(row.kind, row.name, row.first, row.last))
    return found


def definition_at(session: Session, target: str, line: int) -> Definition | None:
    """The definition of ``target`` whose first line is ``line``, from the file's outline;
    None when none begins there or the file has no outline. A search that matched a
    definition's first line (a grep for ``def name``) matched that definition, whether or
    not the index had parsed the file when it answered."""
    try:
        outline = session.probe_read(ReadCall(mode="outline", target=target, limit=5000))
    except Exception:  # noqa: BLE001 - no outline: the match stays a line
        return None
    return next((d for d in _definitions(outline.text) if d.first == line), None)


def related(session: Session, target: str, line: int, end: int,
            reach: int) -> list[Definition]:
    """Definitions of ``target`` within ``reach`` lines of the one at ``line``-``end`` that
    it calls or that call it, nearest first; empty when the file has no outline or cannot be
    read."""
    first = max(1, line - reach)
    try:
        outline = session.probe_read(ReadCall(mode="outline", target=target, limit=5000))
        text = session.probe_read(ReadCall(mode="file", target=target, offset=first,
                                           limit=end - first + 1 + reach,
                                           max_preview_chars=MAX_CHARS))
    except Exception:  # noqa: BLE001 - no outline, no neighbours: the plain window applies
        return []
    lines = text.text.split("\n")
    start = text.start_line
    definitions = _definitions(outline.text)
    matched = next((d for d in definitions if d.first == line), None)
    if matched is None:  # not a definition the outline knows (or a dunder): no neighbours
        return []

    def body(definition: Definition) -> str:
        return "\n".join(lines[definition.first - start:definition.last - start + 1])

    own = body(matched)
    found = [d for d in definitions
             if d is not matched and d.name != matched.name
             and not (matched.first <= d.first and d.last <= matched.last)  # its own inner defs
             and not (d.first <= matched.first and matched.last <= d.last)  # what holds it
             and d.first >= start and d.last - start < len(lines)
             and (d.called_in(own) or matched.called_in(body(d)))]
    return sorted(found, key=lambda d: min(abs(d.first - end), abs(line - d.last)))
