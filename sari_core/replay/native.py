"""A recorded call of the client's own tool, put through Sari's hooks as the client would.

The call goes through :func:`sari_core.native.run_native_call`, the path the installed
hooks take, on the replay's copy of the workspace; the client then obeys the verdict, as
Claude Code does:

* **untouched**: the tool runs as recorded; the model is shown what it was shown then;
* **guide**: the same, plus the hook's note (``additionalContext``);
* **deny**: the tool does not run; the model is shown the hook's reason as the call's error;
* **narrow**: the tool runs with the hook's ``updatedInput`` (a ``Read`` of fewer lines, a
  ``Grep`` with a ``head_limit``, a ``sed -n`` range or ``| head``), plus the note.

:func:`client_view` returns what the model would have been shown, and which lines of
which file it was shown, so that the lines the session was shown then and the hook kept
from it can be followed (:mod:`sari_core.replay.withheld`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sari_core.native import NativeCall, NativeVerdict
from sari_core.native.mapping import SariRequest
from sari_core.replay.transcript import RecordedCall
from sari_core.replay.withheld import file_lines, grep_lines, requested_lines

# How Claude Code (2.1.330) shows its model a PreToolUse hook's answer.
CONTEXT_NOTE = "PreToolUse:{tool} hook additional context: {context}"
DENY_NOTE = "PreToolUse:{tool} hook error: {reason}"
_SARI_ROW = re.compile(r"^(\d+)\t", re.MULTILINE)


@dataclass
class ClientView:
    """What the model is shown for one call after the hook's verdict.

    :ivar text: the tool result (with the hook's note) the model reads.
    :ivar shown: the lines of each file the text shows (``None``: the recorded ones).
    """

    text: str
    shown: dict[str, set[int]] | None = field(default=None)


def native_call(call: RecordedCall, session_id: str, cwd: str | None,
                root: Path) -> NativeCall:
    """The hook call Claude Code would have sent for ``call``, its paths (under the
    session's folder, ``cwd``) standing for the same paths in the replay's copy."""
    return NativeCall("claude-code", call.name, dict(call.input), session_id,
                      cwd or root.as_posix(), recorded_root=cwd)


def numbered(lines: list[str], first: int, last: int) -> str:
    """Lines ``first``..``last`` as Claude Code's ``Read`` shows them."""
    return "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(first, min(last, len(lines)) + 1))


def client_view(call: RecordedCall, verdict: NativeVerdict, cwd: str | None,
                root: Path) -> ClientView:
    """What the model would have been shown for ``call`` under ``verdict``."""
    recorded = (call.result or "").rstrip()
    if verdict.action == "deny":
        return ClientView(DENY_NOTE.format(tool=call.name, reason=verdict.reason),
                          _numbered_in(verdict, root))
    note = CONTEXT_NOTE.format(tool=call.name, context=verdict.context) \
        if verdict.context else ""
    if verdict.action == "narrow" and verdict.updated_input is not None:
        text, shown = _narrowed(call, verdict, cwd, root, recorded)
        return ClientView("\n".join(part for part in (text, note) if part), shown)
    return ClientView("\n".join(part for part in (recorded, note) if part))


def _narrowed(call: RecordedCall, verdict: NativeVerdict, cwd: str | None, root: Path,
              recorded: str) -> tuple[str, dict[str, set[int]]]:
    updated: Mapping[str, Any] = verdict.updated_input or {}
    request = verdict.request
    if isinstance(request, SariRequest) and request.tool == "read" and request.path:
        target = _relative(request.path, root)
        lines = file_lines(root, target) or []
        if call.name == "Read":
            first = int(updated.get("offset") or 1)
            last = first + int(updated.get("limit") or len(lines)) - 1
            text = numbered(lines, first, last)
        else:  # a sed -n 'first,last p' of the file: its lines, unnumbered
            meta = (verdict.response or {}).get("meta") or {}
            first, last = int(meta.get("start_line") or 1), int(meta.get("end_line") or 0)
            text = "\n".join(lines[first - 1:last])
        return text, {target: set(range(first, min(last, len(lines)) + 1))}
    cap = updated.get("head_limit")
    rows = recorded.splitlines()
    kept = "\n".join(rows[:cap] if isinstance(cap, int) else rows)
    single = call.input.get("path") if call.name == "Grep" else None
    return kept, grep_lines(kept, single if isinstance(single, str) else None, cwd)


def _numbered_in(verdict: NativeVerdict, root: Path) -> dict[str, set[int]]:
    """The file lines a denial's reason shows (Sari's read text: ``N<TAB>line`` rows; an
    outline's rows and a re-read's ``a-b`` reference show none)."""
    request = verdict.request
    if not isinstance(request, SariRequest) or request.tool != "read" or not request.path:
        return {}
    rows = {int(match.group(1)) for match in _SARI_ROW.finditer(verdict.reason)}
    return {_relative(request.path, root): rows} if rows else {}


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def recorded_lines(call: RecordedCall, verdict: NativeVerdict, cwd: str | None,
                   root: Path) -> dict[str, set[int]]:
    """The lines of each file the session was shown then by this call, where known."""
    request = verdict.request
    if isinstance(request, SariRequest) and request.tool == "read" and request.path:
        target = _relative(request.path, root)
        lines = file_lines(root, target)
        if lines is None:
            return {}
        if call.name == "Read":
            return {target: requested_lines(call, len(lines))}
        last = len(lines) if request.count is None else request.first + request.count - 1
        return {target: set(range(request.first, min(last, len(lines)) + 1))}
    if isinstance(request, SariRequest) and request.tool == "search" and call.result:
        single = call.input.get("path") if call.name == "Grep" else None
        return grep_lines(call.result, single if isinstance(single, str) else None, cwd)
    return {}
