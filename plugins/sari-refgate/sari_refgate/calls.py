"""Ready-to-run calls the gate proposes: ref reads, precision windows, searches.

Every call built here is one the gate itself would serve (or, for ``search``,
one that creates the refs it asks for), so a client can run it as is.
"""

from __future__ import annotations

import posixpath
from typing import Any

from sari_core.models import NextCall, ReadCall, SearchMatch

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


def precision_windows(call: ReadCall, max_lines: int, max_windows: int,
                      around: int) -> list[NextCall]:
    """The read split into ref-free windows of at most ``max_lines`` lines.

    A bounded range is covered window by window (up to ``max_windows``); an open
    one gets its first window: a whole-file read its first ``max_lines`` lines, a
    snippet without ``end_line`` the ``around`` lines either side of ``start_line``.
    """
    base = read_arguments(call)
    if call.mode == "snippet" and call.start_line is not None:
        extra = call.context_lines or 0
        start = max(1, call.start_line - extra)
        if call.end_line is None:
            start = max(1, call.start_line - around)
            end = call.start_line + around
        else:
            end = call.end_line + extra
        base.pop("context_lines", None)
        return [
            NextCall(tool="read", arguments={**base, "start_line": first,
                                             "end_line": min(end, first + max_lines - 1)})
            for first in range(start, end + 1, max_lines)
        ][:max_windows]
    if call.mode == "file":
        offset = call.offset or 0
        if call.limit is None:
            return [NextCall(tool="read", arguments={**base, "offset": offset, "limit": max_lines})]
        stop = offset + call.limit
        return [
            NextCall(tool="read", arguments={**base, "offset": first,
                                             "limit": min(max_lines, stop - first)})
            for first in range(offset, stop, max_lines)
        ][:max_windows]
    return []


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
        arguments = {"mode": "file", "target": match.path, "offset": 0, "limit": max_lines}
    arguments["candidate_id"] = candidate_id
    if session_id:
        arguments["session_id"] = session_id
    return NextCall(tool="read", arguments=arguments)
