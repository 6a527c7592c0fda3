"""The file lines a search answer showed verbatim: the definitions shown with its hits.

A search answer shows the definition a first hit is in, numbered (``56 | text``), so the
read that would follow is not needed. When the agent reads that file anyway, those lines
are already in its context: they are referenced like lines an earlier read delivered. Only
rows that are the file's line exactly count (the answer strips a line's trailing blanks and
joins a long signature into one row: such rows are not the line), checked against the file
version the read will be compared with (its content hash).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sari_core import ReadCall, Session, split_lines

SHOWN_ROW = re.compile(r"^(\d+) \| ?(.*)$")
MAX_CHARS = 2_000_000  # the probe reads the shown lines whatever their width


@dataclass(frozen=True)
class ShownLines:
    """Lines of one file version a search answer showed verbatim (number -> text)."""

    path: str
    content_hash: str
    lines: dict[int, str]


def shown_rows(matches: Iterable[Mapping[str, Any]]) -> dict[str, dict[int, str]]:
    """Per path, the numbered rows of the definitions the matches show (``context``)."""
    rows: dict[str, dict[int, str]] = {}
    for match in matches:
        context = match.get("context")
        if not isinstance(context, str) or not context:
            continue
        for row in context.split("\n"):
            found = SHOWN_ROW.match(row)
            if found:
                rows.setdefault(str(match.get("path")), {})[int(found.group(1))] = found.group(2)
    return rows


def verbatim(session: Session, path: str, rows: Mapping[int, str]) -> ShownLines | None:
    """The rows that are the file's lines exactly (with their line end), in the version the
    engine reads now; None when the file cannot be read."""
    first, last = min(rows), max(rows)
    try:
        read = session.probe_read(ReadCall(mode="file", target=path, offset=first,
                                           limit=last - first + 1, max_preview_chars=MAX_CHARS))
    except Exception:  # noqa: BLE001 - a file that cannot be read is simply not referenced
        return None
    if not read.content_hash or read.preview_degraded:
        return None
    lines = split_lines(read.text)
    kept = {number: lines[number - read.start_line]
            for number, text in rows.items()
            if 0 <= number - read.start_line < len(lines)
            and lines[number - read.start_line] == text + "\n"}
    return ShownLines(read.path, read.content_hash, kept) if kept else None
