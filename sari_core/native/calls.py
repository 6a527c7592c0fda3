"""A call of a coding client's own tool, as its hook reports it.

Claude Code and Codex send the same core fields to a ``PreToolUse`` hook:
``session_id``, ``cwd``, ``hook_event_name``, ``tool_name`` and ``tool_input`` (Claude
Code: ``Read`` {file_path, offset, limit}, ``Grep`` {pattern, path, glob, type,
output_mode, -i, -n, -A/-B/-C, head_limit}, ``Glob`` {pattern, path}, ``Bash`` {command},
``Edit`` {file_path, old_string, new_string, replace_all}, ``MultiEdit`` {file_path,
edits}, ``Write`` {file_path, content}, ``NotebookEdit`` {notebook_path, ...}; Codex:
``Bash`` {command}, ``apply_patch`` {command}). :func:`native_call` reads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CLIENTS = ("claude-code", "codex")


class NativeCallError(ValueError):
    """The hook's payload is not a tool call this module can read."""


@dataclass(frozen=True)
class NativeCall:
    """One call of a client's own tool.

    :ivar client: ``claude-code`` or ``codex``.
    :ivar tool: the tool's name as the client spells it (``Read``, ``Bash``...).
    :ivar input: the tool's arguments as the client sent them.
    :ivar session_id: the client's id of its session (not a model-written value).
    :ivar cwd: the folder the client runs the tool in (relative paths start there).
    :ivar recorded_root: for a recorded session replayed on another copy of its workspace,
        the folder it ran in: paths under it stand for the same paths under the kernel's
        root. None for a live hook, whose paths are the kernel's own.
    """

    client: str
    tool: str
    input: Mapping[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    cwd: str | None = None
    recorded_root: str | None = None

    @property
    def label(self) -> str:
        """``claude-code:Read``: how the execution log marks the call."""
        return f"{self.client}:{self.tool}"


def native_call(client: str, payload: Mapping[str, Any]) -> NativeCall:
    """The call a ``PreToolUse`` hook payload describes.

    ``tool_input`` may also arrive as JSON text (an ``mcp_tool`` hook fills its input
    from a template, which turns an object into its JSON).

    :raises NativeCallError: an unknown client, or no tool name.
    """
    if client not in CLIENTS:
        raise NativeCallError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise NativeCallError("the hook payload names no tool_name")
    raw_input = payload.get("tool_input")
    if isinstance(raw_input, str):
        try:
            raw_input = json.loads(raw_input) if raw_input.strip() else {}
        except json.JSONDecodeError:
            raise NativeCallError("tool_input is neither an object nor JSON text") from None
    if raw_input is None:
        raw_input = {}
    if not isinstance(raw_input, Mapping):
        raise NativeCallError("tool_input is not an object")
    session = payload.get("session_id")
    cwd = payload.get("cwd")
    return NativeCall(client, tool, dict(raw_input),
                      session if isinstance(session, str) and session else None,
                      cwd if isinstance(cwd, str) and cwd else None)
