"""Each coding client's MCP configuration for Sari: where it lives and what it looks like.

Formats, as the clients document them:

- Claude Code: project ``.mcp.json`` — ``{"mcpServers": {NAME: {"type": "stdio",
  "command", "args", "env"}}}`` (the shape ``claude mcp add-json`` takes); hooks in
  the project's ``.claude/settings.json`` — ``{"hooks": {EVENT: [{"matcher",
  "hooks": [{"type": "command", "command"}]}]}}``.
- Codex: ``~/.codex/config.toml`` (``$CODEX_HOME``), or ``.codex/config.toml`` of a
  trusted project — a ``[mcp_servers.NAME]`` table with ``command`` and ``args``.
- Cursor: ``.cursor/mcp.json`` in the project, or ``~/.cursor/mcp.json`` —
  ``{"mcpServers": {NAME: {"command", "args"}}}``.
- Claude Desktop: ``claude_desktop_config.json`` in the app's config folder
  (macOS ``~/Library/Application Support/Claude``, Windows ``%APPDATA%\\Claude``,
  Linux ``~/.config/Claude``) — the same ``mcpServers`` shape.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sari_core.cli.config_files import (
    ConfigFileError,
    dump_json,
    read_json_object,
    toml_table,
    with_json_server,
    with_toml_server,
)

Scope = Literal["project", "user"]
CLIENTS = ("claude-code", "codex", "cursor", "claude-desktop")
DEFAULT_SCOPE: dict[str, Scope] = {"claude-code": "project", "codex": "user",
                                   "cursor": "project", "claude-desktop": "user"}
SUPPORTED_SCOPES: dict[str, tuple[Scope, ...]] = {
    "claude-code": ("project", "user"), "codex": ("user", "project"),
    "cursor": ("project", "user"), "claude-desktop": ("user",),
}
# Claude Code expands ${VAR} and ${VAR:-default} in a project .mcp.json (command, args,
# env), so the committed entry names no path of this machine: `sari` from PATH unless
# SARI_COMMAND says otherwise, and the project Claude Code runs in.
PORTABLE_COMMAND = "${SARI_COMMAND:-sari}"
PROJECT_DIR = "${CLAUDE_PROJECT_DIR:-.}"
# Claude Code hook events -> (matcher or None, `sari hook claude-code` event).
CLAUDE_HOOKS: tuple[tuple[str, str | None, str], ...] = (
    ("PostToolUse", "Edit|Write|MultiEdit", "post-tool-use"),
    ("PreCompact", None, "pre-compact"),
    ("SessionStart", "compact", "session-start"),
)


@dataclass(frozen=True)
class Launcher:
    """How a client starts Sari: an executable plus the arguments before the subcommand."""

    command: str
    prefix: tuple[str, ...] = ()

    def argv(self, *arguments: str) -> list[str]:
        return [self.command, *self.prefix, *arguments]


def default_launcher() -> Launcher:
    """An absolute command that works from a client's minimal environment.

    Clients (Claude Desktop especially) start servers with a short PATH, so the
    ``sari`` script next to this interpreter is preferred over a bare name.
    """
    script = Path(sys.executable).parent / ("sari.exe" if os.name == "nt" else "sari")
    if script.is_file():
        return Launcher(str(script))
    found = shutil.which("sari")
    if found:
        return Launcher(found)
    return Launcher(sys.executable, ("-m", "sari_core.cli.main"))


@dataclass
class FileChange:
    """The new text of one config file, and what to show for ``--print``."""

    path: Path
    old_text: str | None
    new_text: str
    snippet: str
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.old_text != self.new_text


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def config_path(client: str, scope: Scope, project: Path, home: Path,
                environ: dict[str, str]) -> Path:
    """Where ``client`` reads its MCP servers for ``scope``."""
    if client == "claude-code":
        return project / ".mcp.json"
    if client == "cursor":
        return (project if scope == "project" else home) / ".cursor" / "mcp.json"
    if client == "codex":
        if scope == "project":
            return project / ".codex" / "config.toml"
        codex_home = environ.get("CODEX_HOME")
        return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"
    if client == "claude-desktop":
        if sys.platform == "darwin":
            base = home / "Library" / "Application Support"
        elif os.name == "nt":
            base = Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
        else:
            base = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
        return base / "Claude" / "claude_desktop_config.json"
    raise ValueError(f"unknown client {client!r}")


def portable_workspace(workspace: Path, project: Path) -> str:
    """``workspace`` relative to the project Claude Code runs in, when it lies inside it."""
    try:
        inside = workspace.relative_to(project)
    except ValueError:
        return str(workspace)
    return PROJECT_DIR if inside == Path() else f"{PROJECT_DIR}/{inside.as_posix()}"


def server_entry(client: str, launcher: Launcher, workspaces: list[str]) -> dict[str, Any]:
    """The client's entry for Sari (without the server name)."""
    argv = launcher.argv("serve", *[arg for ws in workspaces for arg in ("--workspace", ws)])
    entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
    if client == "claude-code":
        entry = {"type": "stdio", **entry, "env": {}}
    return entry


def mcp_change(client: str, path: Path, name: str, entry: dict[str, Any]) -> FileChange:
    """The updated config file with Sari's entry added or replaced, others kept."""
    old_text = _read_text(path)
    if client == "codex":
        values = {"command": entry["command"], "args": entry["args"]}
        new_text = with_toml_server(old_text or "", "mcp_servers", name, values, path)
        return FileChange(path, old_text, new_text, toml_table(f"mcp_servers.{name}", values))
    data = read_json_object(path)
    updated = with_json_server(data, name, entry, path)
    new_text = old_text if updated == data and old_text is not None else dump_json(updated)
    return FileChange(path, old_text, new_text, dump_json({"mcpServers": {name: entry}}))


def hook_command(launcher: Launcher, event: str) -> str:
    if launcher.command == PORTABLE_COMMAND:  # a shell runs hooks: let it expand the variable
        return f'"{PORTABLE_COMMAND}" ' + shlex.join([*launcher.prefix, "hook", "claude-code",
                                                       event])
    return shlex.join(launcher.argv("hook", "claude-code", event))


def hooks_change(project: Path, launcher: Launcher, events: set[str]) -> FileChange:
    """``.claude/settings.json`` with Sari's client hooks added (existing hooks kept).

    :param events: the ``sari hook claude-code`` events an installed plugin handles; a
        hook nobody handles would only cost the client a process start per tool call.
    """
    path = project / ".claude" / "settings.json"
    old_text = _read_text(path)
    data = read_json_object(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigFileError(f"{path}: 'hooks' is not an object; nothing was changed.")
    updated_hooks = {event: list(groups) for event, groups in hooks.items()}
    snippet: dict[str, list[dict[str, Any]]] = {}
    for event, matcher, sari_event in CLAUDE_HOOKS:
        if sari_event not in events:
            continue
        command = hook_command(launcher, sari_event)
        group: dict[str, Any] = {"matcher": matcher} if matcher is not None else {}
        group["hooks"] = [{"type": "command", "command": command}]
        snippet[event] = [group]
        groups = updated_hooks.setdefault(event, [])
        present = any(isinstance(existing, dict) and any(
            isinstance(hook, dict) and hook.get("command") == command
            for hook in existing.get("hooks", []))
            for existing in groups)
        if not present:
            groups.append(group)
    updated = {**data, "hooks": updated_hooks}
    new_text = old_text if updated == data and old_text is not None else dump_json(updated)
    return FileChange(path, old_text, new_text, dump_json({"hooks": snippet}))
