"""The file lines a search answer showed: the definitions shown with its hits.

A search answer shows the definition a first hit is in, numbered (``56 | text``), so the
read that would follow is not needed. When the agent reads that file anyway, those lines
are already in its context: they are referenced like lines an earlier read delivered. A row
stands for a line only when it is the line exactly, checked against the read's own text when
the read is served (the answer strips a line's trailing blanks and joins a long signature
into one row: such rows are not the line, and a line changed since the search is sent), so
the search itself reads nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

SHOWN_ROW = re.compile(r"^(\d+) \| ?(.*)$")
# Rows of a file worth remembering: a long definition is shown as its signature (a row or
# two) and an outline, which a reference would not shorten; a definition shown whole has more.
MIN_ROWS = 3


def shown_rows(shown: Iterable[tuple[str, str | None]]) -> dict[str, dict[int, str]]:
    """Per path, the numbered rows of the definitions shown with the matches: ``shown`` is
    each match's path and ``context``."""
    rows: dict[str, dict[int, str]] = {}
    for path, context in shown:
        if not context:
            continue
        for row in context.split("\n"):
            found = SHOWN_ROW.match(row)
            if found:
                rows.setdefault(path, {})[int(found.group(1))] = found.group(2)
    return rows


def in_response(matches: Iterable[Mapping[str, Any]]) -> list[tuple[str, str | None]]:
    """Each match's path and shown definition, from a search response's ``matches``."""
    return [(str(match.get("path")), context if isinstance(context := match.get("context"), str)
             else None) for match in matches]
