"""A blind whole-file read of a long file, served as the file's outline.

An agent that opens a long file no search of its session returned does not know where
in it to look; its first lines are mostly imports. The outline (every definition with its
line range, as ``read mode=outline`` gives it) is the cheapest way to see the whole file,
and the agent reads the lines it needs next. The read itself is narrowed to one line at
enter and its payload replaced at exit, so the engine never loads more than it serves.
"""

from __future__ import annotations

from dataclasses import dataclass

from sari_core.models import NextCall, ReadCall, ReadResult
from sari_core.sessions import Session

MIN_ENTRIES = 3  # fewer definitions than this say too little: the window serves better


@dataclass(frozen=True)
class Outline:
    """The outline a blind read is served as, and what the response says about it."""

    result: ReadResult  # the engine's outline read (rows paged like a file's lines)
    file_lines: int
    message: str
    next_calls: tuple[NextCall, ...]


def is_whole_file(call: ReadCall) -> bool:
    return call.mode == "file" and call.offset is None and call.limit is None


def outline_for(call: ReadCall, session: Session, file_lines: int | None,
                window_lines: int) -> Outline | None:
    """The outline to serve a blind whole-file read of a file longer than ``window_lines``
    as, or None: a short file, fewer than three definitions, more than ``window_lines`` of
    them even at the top level, no outline to be had. The window applies then. An outline
    longer than the window keeps only its top-level definitions."""
    if not is_whole_file(call) or file_lines is None or file_lines <= window_lines:
        return None
    probe = ReadCall(mode="outline", target=call.target)
    try:
        outline = session.probe_read(probe)
    except Exception:  # noqa: BLE001 - no outline (no index, a folder, ...): the window applies
        return None
    rows = outline.text.splitlines(keepends=True)
    scope = ""
    if len(rows) > window_lines:  # too many to beat the window: the module's own names
        rows = [row for row in rows if not row[:1].isspace()]
        scope = "top-level "
    if len(rows) < MIN_ENTRIES or len(rows) > window_lines:
        return None  # too little to go by, or no shorter than the window itself
    outline = outline.model_copy(update={
        "text": "".join(rows), "start_line": 1, "end_line": len(rows),
        "total_lines": len(rows), "truncated": False})
    first = {"mode": "snippet", "target": call.target, "start_line": 1,
             "end_line": window_lines}
    if call.session_id:
        first["session_id"] = call.session_id
    # The header gives the file's length; the sentence says why an outline came instead.
    message = (f"No search in this session returned this file, so this is its {scope}"
               "outline: read the lines you need.")
    return Outline(outline, file_lines, message,
                   (NextCall(tool="read", arguments=first),))


def serve(result: ReadResult, outline: Outline) -> None:
    """Replace the one-line read by the outline; the metadata says what it is."""
    served = outline.result
    result.text = served.text
    result.start_line = served.start_line
    result.end_line = served.end_line
    result.total_lines = served.total_lines
    result.truncated = served.truncated
    result.location = None
    result.extra.update({key: value for key, value in served.extra.items()
                         if key in ("mode", "precision", "index_complete")})
    result.extra["file_lines"] = outline.file_lines
    result.extra.pop("next_offset", None)  # the outline is whole; the file's paging is off
