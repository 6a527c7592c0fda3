"""Ready-to-run calls the gate proposes: ref reads, precision windows, searches.

Every call built here is one the gate itself would serve (or, for ``search``,
one that creates the refs it asks for), so a client can run it as is.
"""

from __future__ import annotations

import posixpath
from typing import Any

from sari_core import NextCall, ReadCall, SearchMatch

_DROPPED_READ_FIELDS = {"entrypoint", "candidate_id", "bundle_id"}


def read_arguments(call: ReadCall) -> dict[str, Any]:
    """The ``read`` arguments of ``call`` without its refs (deprecated wrappers become ``read``)."""
    values = call.model_dump(exclude_none=True, exclude=_DROPPED_READ_FIELDS)
    if values.get("preview_mode") == ReadCall.model_fields["preview_mode"].default:
        values.pop("preview_mode")
    return values


def with_candidate(call: ReadCall, candidate_id: str) -> NextCall:
    """The same read, carrying a ref the session was issued for its target."""
    return NextCall(tool="read", arguments={**read_arguments(call), "candidate_id": candidate_id})


def requested_lines(call: ReadCall) -> tuple[int, int | None] | None:
    """The 1-based lines a file or snippet read asks for, as the engine serves them.

    ``(first, last)``, ``last`` None for an open range (a file read without
    ``limit``); None for modes without a line range (symbol, diff_preview). A
    snippet without ``end_line`` is one line (plus context); ``offset`` is the first
    line of the range shown (from 1) and ``limit`` caps it, in every mode.
    """
    if call.mode == "snippet" and call.start_line is not None:
        context = call.context_lines or 0
        first = max(1, call.start_line - context) + call.skipped_lines
        last: int | None = (call.end_line or call.start_line) + context
    elif call.mode == "file":
        first, last = call.skipped_lines + 1, None
    else:
        return None
    if call.limit is not None:
        capped = first + call.limit - 1
        last = capped if last is None else min(last, capped)
    return first, last


def precision_windows(call: ReadCall, max_lines: int, max_windows: int,
                      total_lines: int | None) -> list[NextCall]:
    """The read cut into ref-free windows of at most ``max_lines`` lines, in its own mode.

    Windows cover the requested lines (up to ``max_windows`` of them), clipped to
    the file's ``total_lines`` when known, so every window is one the engine serves.
    An open range of unknown length gets its first window.
    """
    requested = requested_lines(call)
    if requested is None:
        return []
    first, last = requested
    if total_lines is not None and total_lines > 0:
        if first > total_lines:
            return []
        last = total_lines if last is None else min(last, total_lines)
    if last is None:
        last = first + max_lines - 1
    base = read_arguments(call)
    for key in ("offset", "limit", "start_line", "end_line", "context_lines"):
        base.pop(key, None)
    windows: list[NextCall] = []
    for start in range(first, last + 1, max_lines)[:max_windows]:
        end = min(last, start + max_lines - 1)
        if call.mode == "snippet":
            window = {"start_line": start, "end_line": end}
        else:
            window = {"offset": start, "limit": end - start + 1}
        windows.append(NextCall(tool="read", arguments={**base, **window}))
    return windows


def search_for(call: ReadCall) -> NextCall:
    """A search whose results will include refs for this read's target."""
    if call.mode == "symbol":
        arguments: dict[str, Any] = {"query": call.target, "kind": "symbol"}
    else:
        name = posixpath.basename(call.target.replace("\\", "/").rstrip("/")) or call.target
        arguments = {"query": name, "kind": "path"}
    if call.session_id:
        arguments["session_id"] = call.session_id
    return NextCall(tool="search", arguments=arguments)


def read_for_match(match: SearchMatch, candidate_id: str, max_lines: int, context_lines: int,
                   session_id: str | None) -> NextCall:
    """The read a search proposes for one of its matches: a window around its line."""
    arguments: dict[str, Any]
    if match.line is not None:
        start = max(1, match.line - context_lines)
        end = max(match.line, match.end_line or match.line) + context_lines
        arguments = {"mode": "snippet", "target": match.path, "start_line": start,
                     "end_line": min(end, start + max_lines - 1)}
    else:
        arguments = {"mode": "file", "target": match.path, "offset": 1, "limit": max_lines}
    arguments["candidate_id"] = candidate_id
    if session_id:
        arguments["session_id"] = session_id
    return NextCall(tool="read", arguments=arguments)
