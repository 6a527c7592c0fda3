"""The hook entries ``sari install --hooks`` writes, and how ``sari doctor`` recognises them.

Claude Code (``.claude/settings.json``), a ``PreToolUse`` group matching its own read,
search and edit tools, with one hook of the type asked for:

* ``mcp_tool`` (default): a call of the ``hook`` tool of the Sari server the client
  already runs (``.mcp.json``), its input filled from the hook's payload; no process per
  call;
* ``http``: a ``POST`` to ``/hooks/claude-code`` of ``sari serve --transport http``, the
  bearer token taken from ``SARI_HTTP_TOKEN`` in the client's environment;
* ``command``: the thin client (:mod:`sari_core.native.hook_client`) of such a server.

Fail safe: each hook has a timeout after which the client goes ahead (its default on a
failed hook), and beside it go command hooks running the thin client's own secret-file
list, each for ``Read`` calls of one secret glob only (an ``if`` rule: no process for any
other call), so a secret file stays refused when Sari is down or slow.

Codex (``hooks.json`` beside the ``config.toml`` Sari's server entry goes to): a
``PreToolUse`` command hook for its shell (``Bash``) running the thin client, which
refuses secret files on its own when the server is down or slow.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from sari_core.native import hook_client
from sari_core.native.serving import HOOK_TOOL

HOOK_TYPES = ("mcp_tool", "http", "command")
CLAUDE_MATCHER = "Read|Grep|Glob|Bash|Edit|MultiEdit|Write|NotebookEdit"
CODEX_MATCHER = "Bash"
DEFAULT_HOOK_URL = "http://127.0.0.1:8765"
# Seconds a client waits for Sari's answer before it goes ahead untouched.
HOOK_TIMEOUT = 10
THIN_CLIENT_TIMEOUT = 3
# What the mcp_tool hook passes: the fields of the hook's payload run_native_call reads.
MCP_TOOL_INPUT = {"client": "claude-code", "hook_event_name": "${hook_event_name}",
                  "tool_name": "${tool_name}", "tool_input": "${tool_input}",
                  "session_id": "${session_id}", "cwd": "${cwd}"}


def base_url(url: str | None) -> str:
    """The server's base URL from ``--url`` (its MCP endpoint) or the default."""
    if not url:
        return DEFAULT_HOOK_URL
    return url.rstrip("/").removesuffix("/mcp")


def thin_client_command(client: str, url: str, token_file: Path | None,
                        python: str | None = None) -> str:
    """The command line of the thin hook: this interpreter, isolated, without site."""
    argv = [python or sys.executable, "-I", "-S", hook_client.__file__, client, "--url", url,
            "--timeout", str(THIN_CLIENT_TIMEOUT)]
    if token_file is not None:
        argv += ["--token-file", str(token_file)]
    return shlex.join(argv)


def claude_pre_tool_use_hook(hook_type: str, server_name: str, url: str,
                             token_file: Path | None) -> dict[str, Any]:
    """The hook of the type asked for (``mcp_tool``, ``http`` or ``command``)."""
    if hook_type == "mcp_tool":
        return {"type": "mcp_tool", "server": server_name, "tool": HOOK_TOOL,
                "input": dict(MCP_TOOL_INPUT), "timeout": HOOK_TIMEOUT}
    if hook_type == "http":
        return {"type": "http", "url": f"{url}/hooks/claude-code", "timeout": HOOK_TIMEOUT,
                "headers": {"Authorization": "Bearer $SARI_HTTP_TOKEN"},
                "allowedEnvVars": ["SARI_HTTP_TOKEN"]}
    return {"type": "command", "command": thin_client_command("claude-code", url, token_file),
            "timeout": HOOK_TIMEOUT}


# In the Claude Code plugin: any python3, and the thin client from the plugin's folder
# (this repository), which it can run since it needs the standard library alone.
PLUGIN_GUARD_COMMAND = ("python3 -I -S \"${CLAUDE_PLUGIN_ROOT}/sari_core/native/hook_client.py\" "
                        "claude-code --offline")


def secret_guard_hooks(command: str | None = None) -> list[dict[str, Any]]:
    """Command hooks refusing a ``Read`` of a secret file with the thin client's own list,
    one per secret glob, each run only for a read its ``if`` rule matches (no process for
    any other call): they hold when the hook into Sari fails or times out.

    :param command: the command line (default: this interpreter running this installation's
        thin client).
    """
    if command is None:
        command = shlex.join([sys.executable, "-I", "-S", hook_client.__file__,
                              "claude-code", "--offline"])
    return [{"type": "command", "command": command, "if": f"Read(**/{glob})",
             "timeout": HOOK_TIMEOUT} for glob in hook_client.SECRET_GLOBS]


def is_sari_pre_tool_use(hook: object, server_name: str = "sari") -> bool:
    """Whether ``hook`` (one entry of a hooks group) is Sari's PreToolUse hook."""
    if not isinstance(hook, dict):
        return False
    if hook.get("type") == "mcp_tool":
        return hook.get("server") == server_name and hook.get("tool") == HOOK_TOOL
    if hook.get("type") == "http":
        return str(hook.get("url", "")).endswith("/hooks/claude-code")
    return "hook_client.py" in str(hook.get("command", ""))


def asks_sari(hook: object) -> bool:
    """Whether ``hook`` is one of Sari's that asks a server (not the secret-file guard)."""
    return is_sari_pre_tool_use(hook) and "--offline" not in str(
        hook.get("command", "") if isinstance(hook, dict) else "")


def with_claude_pre_tool_use(settings: dict[str, Any], hooks_of_sari: list[dict[str, Any]],
                             server_name: str) -> dict[str, Any]:
    """``settings`` with Sari's PreToolUse hooks (replacing earlier ones of Sari's, keeping
    every other hook)."""
    hooks = {event: list(groups) for event, groups in (settings.get("hooks") or {}).items()}
    groups = []
    for group in hooks.get("PreToolUse", []):
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [h for h in group["hooks"] if not is_sari_pre_tool_use(h, server_name)]
            if not kept:
                continue
            group = {**group, "hooks": kept}
        groups.append(group)
    groups.append({"matcher": CLAUDE_MATCHER, "hooks": hooks_of_sari})
    hooks["PreToolUse"] = groups
    return {**settings, "hooks": hooks}


def codex_hooks_file(config_path: Path) -> Path:
    """Where Codex reads hooks for the config file Sari's server entry goes to."""
    return config_path.parent / "hooks.json"


def with_codex_pre_tool_use(data: dict[str, Any], command: str) -> dict[str, Any]:
    """Codex's ``hooks.json`` with Sari's PreToolUse command hook (others kept)."""
    hooks = {event: list(groups) for event, groups in (data.get("hooks") or {}).items()}
    groups = []
    for group in hooks.get("PreToolUse", []):
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [h for h in group["hooks"] if not is_sari_pre_tool_use(h)]
            if not kept:
                continue
            group = {**group, "hooks": kept}
        groups.append(group)
    groups.append({"matcher": CODEX_MATCHER, "hooks": [
        {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]})
    hooks["PreToolUse"] = groups
    return {**data, "hooks": hooks}
