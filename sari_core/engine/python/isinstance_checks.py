"""``isinstance(x, C) and x.attr``: a condition that narrows ``x`` for what follows it.

Python evaluates ``and`` left to right, so in ``isinstance(v, Table) and v.value.body``
(on one line, or over the lines of one bracketed expression) the right side sees ``v`` as
a ``Table``, as a type checker does.
"""

from __future__ import annotations

import re

from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.subclasses import extending

MAX_CONDITION_LINES = 6  # a bracketed condition may run over this many lines


def narrowed_in_condition(lines: list[str], line: int, name: str) -> tuple[str, int] | None:
    """The class an ``isinstance(name, C) and`` earlier in the expression holding line
    ``line`` narrows ``name`` to, with the line of the check; None when there is none."""
    check = re.compile(rf"\bisinstance\(\s*{re.escape(name)}\s*,\s*([\w.]+)\s*\)\s*(?:and\b|$)")
    own = lines[line - 1].split("#", 1)[0] if line <= len(lines) else ""
    found = check.search(own)
    if found and re.search(rf"\band\b.*(?<![\w.]){re.escape(name)}\.", own[found.start():]):
        return found.group(1).rsplit(".", 1)[-1], line
    balance, candidate = 0, None
    for number in range(line - 1, max(0, line - MAX_CONDITION_LINES), -1):
        text = lines[number - 1].split("#", 1)[0]
        if text.rstrip().endswith(":"):
            return None  # a block's header: the expression did not start above it
        balance += sum(map(text.count, "([{")) - sum(map(text.count, ")]}"))
        found = check.search(text)
        if found and candidate is None:
            candidate = (found.group(1).rsplit(".", 1)[-1], number)
        if balance > 0:  # the bracket holding the use opens here
            return candidate
    return None


def narrowed(store: IndexStore, checked: str, known: set[str] | None) -> set[str] | None:
    """What an isinstance check against ``checked`` leaves of a receiver holding ``known``:
    ``checked`` when it extends a known class (or nothing is known), else ``known`` (a
    check against an unrelated class tells less than the binding did)."""
    return {checked} if known is None or checked in known | extending(store, known) else known
