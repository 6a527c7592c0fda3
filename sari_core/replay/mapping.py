"""Which Sari call an agent would have made for each recorded tool call.

The rules (the documentation repeats them):

* ``Read(file_path, offset, limit)`` is ``read(mode="file", target=<path relative to the
  session's folder>)``; ``offset`` (the first line shown, from 1, in both) and ``limit`` are
  kept.
* ``Grep(pattern, path, glob, -i, head_limit)`` is ``search(kind="regex", query=pattern)``,
  limited to ``path`` and ``glob`` by ``path_glob``, case-insensitive with ``-i``, with
  ``limit = head_limit`` (at most 50).
* ``Glob(pattern, path)`` is ``search(kind="path")`` for the pattern's longest literal part,
  limited by ``path_glob`` to the pattern itself.
* ``mcp__sari__search`` and ``mcp__sari__read`` are run as recorded (a recorded
  ``session_id`` is dropped: the replay has its own session).
* A read passes the ``candidate_id`` the session's latest search issued for that file,
  as an agent following Sari's instructions does.

Everything else (edits, shell commands, other tools, and reads of paths outside the
session's folder) is *passed through*: the agent would have used the same tool with or
without Sari, so it costs the same in both columns.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from sari_core.replay.transcript import RecordedCall

SARI_PREFIX = "mcp__sari__"
MAX_SEARCH_LIMIT = 50
_GLOB_CHARS = re.compile(r"[*?\[\]{}]")


@dataclass(frozen=True)
class SariCall:
    """A call to run through the kernel: ``tool`` is ``search`` or ``read``."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class PassThrough:
    """A call Sari would not have served; ``reason`` says why, in a few words."""

    reason: str


def relative_target(file_path: str, cwd: str | None) -> str | None:
    """``file_path`` relative to the session's folder, or ``None`` when it lies outside."""
    if not file_path:
        return None
    path = PurePosixPath(file_path)
    if not path.is_absolute():
        relative = posixpath.normpath(file_path)
    elif cwd is None:
        return None
    else:
        relative = posixpath.relpath(posixpath.normpath(file_path), posixpath.normpath(cwd))
    if relative == ".." or relative.startswith("../") or posixpath.isabs(relative):
        return None
    return relative


def _scope_glob(path: str | None, glob: str | None, cwd: str | None) -> str | None | bool:
    """The ``path_glob`` for a search limited to ``path`` and ``glob``; False when outside."""
    scope = relative_target(path, cwd) if path else "."
    if scope is None:
        return False
    parts = [] if scope == "." else [scope]
    if glob:
        parts.append(glob if "/" in glob else f"**/{glob}")
    elif parts and not PurePosixPath(scope).suffix:
        parts.append("**")
    return "/".join(parts) if parts else None


def _read(call: RecordedCall, cwd: str | None, refs: dict[str, str]) -> SariCall | PassThrough:
    target = relative_target(str(call.input.get("file_path") or ""), cwd)
    if target is None:
        return PassThrough("outside the workspace")
    arguments: dict[str, Any] = {"mode": "file", "target": target}
    offset = call.input.get("offset")
    if isinstance(offset, int) and offset > 1:
        arguments["offset"] = offset
    limit = call.input.get("limit")
    if isinstance(limit, int) and limit > 0:
        arguments["limit"] = limit
    if target in refs:
        arguments["candidate_id"] = refs[target]
    return SariCall("read", arguments)


def _grep(call: RecordedCall, cwd: str | None) -> SariCall | PassThrough:
    pattern = call.input.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return PassThrough("no pattern")
    glob = call.input.get("glob")
    scope = _scope_glob(call.input.get("path"), glob if isinstance(glob, str) else None, cwd)
    if scope is False:
        return PassThrough("outside the workspace")
    arguments: dict[str, Any] = {"query": pattern, "kind": "regex",
                                 "case_sensitive": not call.input.get("-i")}
    if scope:
        arguments["path_glob"] = scope
    head_limit = call.input.get("head_limit")
    if isinstance(head_limit, int) and head_limit > 0:
        arguments["limit"] = min(head_limit, MAX_SEARCH_LIMIT)
    return SariCall("search", arguments)


def _glob(call: RecordedCall, cwd: str | None) -> SariCall | PassThrough:
    pattern = call.input.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return PassThrough("no pattern")
    literals = [part for part in _GLOB_CHARS.split(pattern.rsplit("/", 1)[-1]) if part]
    if not literals:
        return PassThrough("a pattern with no literal part")
    scope = _scope_glob(call.input.get("path"), pattern, cwd)
    if scope is False:
        return PassThrough("outside the workspace")
    arguments: dict[str, Any] = {"query": max(literals, key=len), "kind": "path"}
    if scope:
        arguments["path_glob"] = scope
    return SariCall("search", arguments)


def to_sari_call(call: RecordedCall, cwd: str | None,
                 refs: dict[str, str]) -> SariCall | PassThrough:
    """The Sari call for a recorded call, or why it passes through unchanged.

    :param call: the recorded call.
    :param cwd: the session's folder as recorded (absolute paths are relative to it).
    :param refs: ``candidate_id`` by file, from the replay's own searches so far.
    :return: a :class:`SariCall` or a :class:`PassThrough`.
    """
    if call.name == "Read":
        return _read(call, cwd, refs)
    if call.name == "Grep":
        return _grep(call, cwd)
    if call.name == "Glob":
        return _glob(call, cwd)
    if call.name.startswith(SARI_PREFIX):
        tool = call.name[len(SARI_PREFIX):]
        if tool in ("search", "read"):
            arguments = {k: v for k, v in call.input.items() if k != "session_id"}
            target = arguments.get("target")
            if tool == "read" and "candidate_id" not in arguments and target in refs:
                arguments["candidate_id"] = refs[str(target)]
            return SariCall(tool, arguments)
        return PassThrough(f"Sari's {tool} (not a search or read)")
    return PassThrough("not a read or search")


def remember_refs(response: dict[str, Any], refs: dict[str, str]) -> None:
    """Keep the ``candidate_id`` of each file a search matched: its best match, latest search."""
    found: dict[str, str] = {}
    for match in response.get("matches") or ():
        if isinstance(match, dict) and match.get("candidate_id") and match.get("path"):
            found.setdefault(str(match["path"]), str(match["candidate_id"]))
    refs.update(found)
