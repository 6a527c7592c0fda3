"""A blind read of many lines, served as the outline of those lines.

An agent that opens a long file no search of its session returned does not know where
in it to look; its first lines are mostly imports, and a window of them is arbitrary. The
outline (every definition with its line range, as ``read mode=outline`` gives it, kept to
the lines the read asked for) is the cheapest way to see them, and the agent reads the
lines it needs next; the file then counts as seen, so that read is served as asked. The
read itself is narrowed to one line at enter and its payload replaced at exit, so the
engine never loads more than it serves.

After ``drift_after`` blind reads in a row, a read of any length is outlined: an agent
opening file after file has lost the thread of its searches.
"""

from __future__ import annotations

from dataclasses import dataclass

from sari_core import NextCall, ReadCall, ReadResult, Session, parse_row
from sari_refgate.calls import requested_lines

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


def _reaches(row: str, first: int, last: int) -> bool:
    """Does an outline row's definition reach into first..last? A row that names no
    definition is kept, not silently lost."""
    parsed = parse_row(row)
    return parsed is None or parsed.overlaps(first, last)


def outline_for(call: ReadCall, session: Session, file_lines: int | None,
                window_lines: int, *, drift: int = 0, searched: bool = False
                ) -> Outline | None:
    """The outline to serve a blind read of more than ``window_lines`` lines as (of the
    whole file, or of the lines a range names), or None: a short read, fewer than three
    definitions, more than ``window_lines`` of them even at the top level, no outline to
    be had. The window applies then. An outline longer than the window keeps only its
    top-level definitions.

    :param drift: when the read is the ``drift``-th blind read in a row, a read of any
        length with at least one definition is outlined: the session has drifted.
    :param searched: the session's searches returned the file, but nothing in these lines."""
    requested = requested_lines(call)
    if requested is None or file_lines is None:
        return None
    first, asked_last = requested
    last = file_lines if asked_last is None else min(asked_last, file_lines)
    if last < first or (not drift and last - first + 1 <= window_lines):
        return None
    probe = ReadCall(mode="outline", target=call.target)
    try:
        outline = session.probe_read(probe)
    except Exception:  # noqa: BLE001 - no outline (no index, a folder, ...): the window applies
        return None
    rows = outline.text.splitlines(keepends=True)
    whole = first == 1 and last == file_lines
    if not whole:
        rows = [row for row in rows if _reaches(row, first, last)]
    scope = ""
    if len(rows) > window_lines:  # too many to beat the window: the module's own names
        rows = [row for row in rows if not row[:1].isspace()]
        scope = "top-level "
    if len(rows) < (1 if drift else MIN_ENTRIES) or len(rows) > window_lines:
        return None  # too little to go by, or no shorter than the window itself
    outline = outline.model_copy(update={
        "text": "".join(rows), "start_line": 1, "end_line": len(rows),
        "total_lines": len(rows), "truncated": False})
    window = {"mode": "snippet", "target": call.target, "start_line": first,
              "end_line": min(last, first + window_lines - 1)}
    if call.session_id:
        window["session_id"] = call.session_id
    # The header gives the file's length; the sentence says why an outline came instead.
    what = f"its {scope}outline" if whole else f"the {scope}outline of lines {first}-{last}"
    if drift:
        message = (f"Read {drift} in a row of files no search in this session returned: "
                   f"this is {what}. Search for what you need, or read the lines.")
    else:
        unsearched = "matched these lines" if searched else "returned this file"
        message = f"No search in this session {unsearched}, so this is {what}: read the lines " \
                  "you need."
    # A drifting session is offered the read it asked for; a blind read is not offered its
    # first window: the outline names every definition's lines, and a window of the file's
    # first lines (mostly imports) would contradict "read the lines you need".
    calls = (NextCall(tool="read", arguments=window),) if drift else ()
    return Outline(outline, file_lines, message, calls)


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
