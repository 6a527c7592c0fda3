"""Lines a replayed answer withheld, and the later calls that show they were needed.

When Sari answers a recorded read with fewer lines than the session was shown (an outline,
a window, a refusal), the replay keeps those lines as *withheld*. A later call of the
session that reads, greps or edits any of them shows the agent needed them: it would have
had to read them first, so the Sari column is charged that read: one more turn, and every
line that call withheld, as a read shows them (the agent re-issues the read it was
denied or given less of).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sari_core.costmodel import tokens
from sari_core.replay.mapping import relative_target
from sari_core.replay.transcript import RecordedCall

# Claude Code's Read shows this many lines when the call names no limit.
CLIENT_READ_LINES = 2000
# A content-mode Grep line with its number: ``path:12:text`` (a match) or ``path-12-text``
# (context); a single-file Grep prints ``12:text``.
_GREP_LINE = re.compile(r"^(?:(?P<path>.+?)[:-])?(?P<line>\d+)[:-]")


def file_lines(root: Path, target: str) -> list[str] | None:
    """The file's lines as they are in the replay's copy now, ``None`` when unreadable."""
    try:
        return (root / target).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def requested_lines(call: RecordedCall, total_lines: int) -> set[int]:
    """The lines a recorded ``Read`` was shown (its offset and limit, clipped to the file)."""
    offset = call.input.get("offset")
    limit = call.input.get("limit")
    first = offset if isinstance(offset, int) and offset > 1 else 1
    count = limit if isinstance(limit, int) and limit > 0 else CLIENT_READ_LINES
    return set(range(first, min(first + count - 1, total_lines) + 1))


def delivered_lines(response: dict[str, Any]) -> set[int]:
    """The file lines a Sari read response showed (none for an outline or an error)."""
    if not response.get("ok") or not isinstance(response.get("text"), str):
        return set()
    meta = response.get("meta") or {}
    first, last = meta.get("start_line"), meta.get("end_line")
    if not isinstance(first, int) or not isinstance(last, int):
        return set()
    return set(range(first, last + 1))


def touched_lines(call: RecordedCall, cwd: str | None, root: Path) -> dict[str, set[int]]:
    """The file lines a later recorded call shows the agent needed, by file.

    A ``Read`` needs the lines it asks for; a content-mode ``Grep`` the lines its result
    printed with their numbers; a shell command the same for the reads and searches it
    makes; an ``Edit`` or ``MultiEdit`` the lines its old text spans in the file as it is
    now. Other calls name no lines.
    """
    if call.name == "Read":
        target = relative_target(str(call.input.get("file_path") or ""), cwd)
        lines = file_lines(root, target) if target else None
        return {target: requested_lines(call, len(lines))} if target and lines else {}
    if call.name == "Grep" and call.result and not call.is_error:
        only = call.input.get("path")
        return grep_lines(call.result, only if isinstance(only, str) else None, cwd)
    if call.name == "Bash" and isinstance(call.input.get("command"), str):
        return _shell_lines(call, cwd, root)
    if call.name in ("Edit", "MultiEdit"):
        target = relative_target(str(call.input.get("file_path") or ""), cwd)
        text = _file_text(root, target) if target else None
        if target is None or text is None:
            return {}
        edits = call.input.get("edits") if call.name == "MultiEdit" else [call.input]
        found: set[int] = set()
        for edit in edits if isinstance(edits, list) else []:
            old = str(edit.get("old_string") or "") if isinstance(edit, dict) else ""
            at = text.find(old) if old else -1
            if at >= 0:
                first = text.count("\n", 0, at) + 1
                found.update(range(first, first + old.count("\n") + 1))
        return {target: found} if found else {}
    return {}


def _shell_lines(call: RecordedCall, cwd: str | None, root: Path) -> dict[str, set[int]]:
    """A shell command's reads (``cat``, ``head``, ``tail``, ``sed -n``: their lines) and
    content searches (``grep -n``, ``rg -n``: the numbered lines printed), as the hooks
    read the command; a command not understood whole names no lines."""
    from sari_core.native.shell import FileRead, TextSearch, shell_request

    request = shell_request(str(call.input["command"]))
    if isinstance(request, FileRead):
        target = relative_target(request.path, cwd)
        lines = file_lines(root, target) if target else None
        if target is None or lines is None:
            return {}
        if request.last is not None:
            first, last = max(1, len(lines) - request.last + 1), len(lines)
        else:
            first = request.first
            last = len(lines) if request.count is None else first + request.count - 1
        return {target: set(range(first, min(last, len(lines)) + 1))}
    if isinstance(request, TextSearch) and not request.files_only and call.result \
            and not call.is_error:
        only = request.paths[0] if len(request.paths) == 1 else None
        return grep_lines(call.result, only, cwd)
    return {}


def _file_text(root: Path, target: str) -> str | None:
    try:
        return (root / target).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def grep_lines(text: str, only: str | None, cwd: str | None) -> dict[str, set[int]]:
    """The numbered lines a content-mode search printed, by file (relative to ``cwd``);
    ``only`` is the file a single-file search named (its rows carry no path)."""
    single = relative_target(only, cwd) if only else None
    found: dict[str, set[int]] = {}
    for row in text.splitlines():
        match = _GREP_LINE.match(row)
        if match is None:
            continue
        path = match.group("path")
        target = relative_target(path, cwd) if path else single
        if target:
            found.setdefault(target, set()).add(int(match.group("line")))
    return found


# Needed lines closer than this are read together, with the lines between them.
READ_GAP = 20


def follow_up_tokens(lines: list[str], wanted: Iterable[int]) -> tuple[int, set[int]]:
    """The read an agent makes for ``wanted``: each run of them (lines less than
    ``READ_GAP`` apart, with the lines between), numbered, under one header.

    :return: its tokens, and the lines it shows.
    """
    numbers = sorted(n for n in set(wanted) if 1 <= n <= len(lines))
    shown: set[int] = set()
    for number in numbers:
        if shown and number - max(shown) < READ_GAP:
            shown.update(range(max(shown) + 1, number + 1))
        else:
            shown.add(number)
    if not shown:
        return 0, shown
    body = "\n".join(f"{n}\t{lines[n - 1]}" for n in sorted(shown))
    return tokens(f"lines {min(shown)}-{max(shown)} of {len(lines)}\n{body}"), shown


@dataclass
class Action:
    """A recorded call Sari answered with less than the session was shown.

    :ivar line: the transcript line of the call.
    :ivar kind: ``refused`` (a policy's refusal) or ``narrowed`` (fewer lines: an outline,
        a window, a trimmed read).
    :ivar withheld: how many of the lines the session was shown Sari withheld.
    :ivar needed_at: the transcript line of the first later call that read, grepped or
        edited a withheld line; ``None`` while none has.
    """

    line: int
    tool: str
    target: str
    kind: str
    withheld: int
    needed_at: int | None = None


class Withheld:
    """The lines Sari withheld so far, by file, each with the action that withheld it."""

    def __init__(self) -> None:
        self.actions: list[Action] = []
        self._lines: dict[str, dict[int, Action]] = {}

    def add(self, action: Action, path: str, lines: Iterable[int]) -> None:
        rows = set(lines)
        if not rows:
            return
        action.withheld = len(rows)
        self.actions.append(action)
        mine = self._lines.setdefault(path, {})
        for row in rows:
            mine[row] = action

    def needed(self, touched: dict[str, set[int]]) -> dict[str, set[int]]:
        """Which of ``touched`` are withheld, by file."""
        return {path: rows & self._lines[path].keys() for path, rows in touched.items()
                if path in self._lines and rows & self._lines[path].keys()}

    def of_same_calls(self, path: str, rows: Iterable[int]) -> set[int]:
        """Every line still withheld in ``path`` by the calls that withheld ``rows``: what
        the agent reads again when it needs any of them (the read it was denied)."""
        mine = self._lines.get(path, {})
        owners = {id(mine[row]) for row in rows if row in mine}
        return {row for row, action in mine.items() if id(action) in owners}

    def release(self, path: str, rows: Iterable[int], at: int | None) -> None:
        """Those lines reach the agent now; ``at`` (a transcript line) marks their
        actions as needed, ``None`` when Sari's own answer shows them."""
        mine = self._lines.get(path, {})
        for row in rows:
            action = mine.pop(row, None)
            if action is not None and at is not None and action.needed_at is None:
                action.needed_at = at
