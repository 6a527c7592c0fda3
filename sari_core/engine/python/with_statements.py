"""A Python ``with`` statement whose brackets run over several lines, read as one line.

Formatted code often writes ``with Client(\n    timeout=5,\n) as client:``: the name bound
is on the last line, what binds it on the first.
"""

from __future__ import annotations

import re

MAX_WITH_LINES = 20  # a with statement's brackets may run over this many lines


def with_statement(lines: list[str], number: int, name: str) -> str:
    """The ``with`` statement whose brackets run from lines above to ``... as name:`` on
    line ``number`` (``with Client(\\n    timeout=5,\\n) as client:``), joined on one line;
    '' when the line ends no such statement."""
    if not re.search(rf"\bas\s+{re.escape(name)}\s*[:,)]", lines[number - 1]):
        return ""
    for first in range(number - 1, max(0, number - MAX_WITH_LINES), -1):
        if not re.match(r"\s*(?:async\s+)?with\b", lines[first - 1]):
            continue
        parts = [line.split("#", 1)[0].strip() for line in lines[first - 1:number]]
        depth = 0
        for part in parts[:-1]:  # every line before the last leaves a bracket open
            depth += sum(map(part.count, "([{")) - sum(map(part.count, ")]}"))
            if depth <= 0:
                return ""
        return " ".join(parts)
    return ""
