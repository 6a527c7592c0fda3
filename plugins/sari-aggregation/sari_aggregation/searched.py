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
# Rows of a file worth a probe of it: a long definition is shown as its signature (a row or
# two) and an outline, which a reference would not shorten; a definition shown whole has more.
MIN_ROWS = 3


@dataclass(frozen=True)
class ShownLines:
    """Lines of one file version a search answer showed verbatim (number -> text)."""

    path: str
    content_hash: str
    lines: dict[int, str]


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


def verbatim(session: Session, path: str, rows: Mapping[int, str]) -> ShownLines | None:
    """The rows that are the file's lines exactly (with their line end), in the version the
    engine reads now; None when the file cannot be read."""
    if len(rows) < MIN_ROWS:
        return None
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
