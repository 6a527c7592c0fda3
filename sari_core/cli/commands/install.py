"""``sari install CLIENT``: add Sari to a coding client's MCP configuration.

Writes (or, with ``--print``, prints) the client's documented config; other
servers already configured there are kept, and the file is backed up first.
``--hooks`` also adds Sari's client hooks: for Claude Code to the project's
``.claude/settings.json``, for Codex to the ``hooks.json`` beside its ``config.toml``
(see :mod:`sari_core.native.hook_entries`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from sari_core.cli.client_setup import (
    CLAUDE_HOOKS,
    CLIENTS,
    DEFAULT_SCOPE,
    PORTABLE_COMMAND,
    SUPPORTED_SCOPES,
    FileChange,
    Launcher,
    config_path,
    default_launcher,
    hooks_change,
    mcp_change,
    portable_workspace,
    server_entry,
)
from sari_core.cli.config_files import (
    ConfigFileError,
    backup,
    dump_json,
    read_json_object,
    write_atomically,
)
from sari_core.kernel.commands import CommandRegistry
from sari_core.kernel.loading import declared_client_hooks, plugin_and_hook_entry_points
from sari_core.kernel.local_policies import load_local_policies
from sari_core.kernel.manager import SariPluginManager
from sari_core.kernel.plugin import declared_attributes
from sari_core.kernel.policy_folder import plugins_dir
from sari_core.locations import state_dir
from sari_core.native.hook_entries import (
    DEFAULT_HOOK_URL,
    HOOK_TYPES,
    base_url,
    claude_pre_tool_use_hook,
    codex_hooks_file,
    secret_guard_hooks,
    thin_client_command,
    with_claude_pre_tool_use,
    with_codex_pre_tool_use,
)
from sari_core.server.http_token import token_file


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("client", choices=CLIENTS, help="the client to configure")
    parser.add_argument("--workspace", "-w", action="append", metavar="PATH", default=[],
                        help="workspace the server serves (repeatable; default: the current "
                             "folder, which is also the project whose config is written)")
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the configuration instead of writing it")
    parser.add_argument("--scope", choices=("project", "user"),
                        help="project or user configuration (default: project for "
                             "claude-code and cursor, user for codex and claude-desktop); "
                             "claude-code user scope prints the `claude mcp add-json` "
                             "command that adds it")
    parser.add_argument("--name", default="sari", help="server name in the config (default sari)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="write this file instead of the client's default location")
    parser.add_argument("--command", metavar="EXE",
                        help="command the client runs to start Sari (default: the absolute path "
                             "of this installation's sari script)")
    parser.add_argument("--url", metavar="URL",
                        help="claude-code, cursor: connect to a running `sari serve --transport "
                             "http` at URL instead of starting Sari over stdio")
    parser.add_argument("--token", metavar="TOKEN",
                        help="with --url: the bearer token to send (default: SARI_HTTP_TOKEN, "
                             "else the token `sari serve` stored in Sari's state folder)")
    parser.add_argument("--hooks", action="store_true",
                        help="also add Sari's hooks: claude-code, a PreToolUse hook putting "
                             "its own Read, Grep, Glob, Bash and edit tools through Sari's "
                             "policies (and the plugins' PostToolUse, PreCompact, "
                             "SessionStart) in .claude/settings.json; codex, a PreToolUse "
                             "hook for its shell in hooks.json beside its config.toml")
    parser.add_argument("--hook-type", choices=HOOK_TYPES,
                        help="claude-code: how the PreToolUse hook reaches Sari: mcp_tool "
                             "(default; the server the client already runs), http (a "
                             "running `sari serve --transport http`, the default with --url) "
                             "or command (a thin client of that server)")
    parser.add_argument("--hook-url", metavar="URL",
                        help="the running `sari serve --transport http` that http and command "
                             "hooks reach (default: --url without /mcp, else "
                             f"{DEFAULT_HOOK_URL})")


APPROVAL_NOTE = (
    "Claude Code asks before it starts a server from a project .mcp.json: start `claude` "
    "in this folder and accept the prompt for {name!r} (or run /mcp and enable it); until "
    "then `claude mcp list` shows it as pending approval. To approve it for yourself "
    "without the prompt, add \"enabledMcpjsonServers\": [\"{name}\"] to "
    ".claude/settings.local.json."
)
PATH_NOTE = (
    "The committed entry runs `sari` from PATH (this installation: {command}). Where "
    "`sari` is not on PATH, export SARI_COMMAND={command} before starting the client."
)


def _workspaces(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    workspaces = [Path(p).expanduser().resolve() for p in args.workspace] or [Path.cwd().resolve()]
    return workspaces[0], workspaces


def _plan(args: argparse.Namespace) -> list[FileChange]:
    project, workspaces = _workspaces(args)
    scope = args.scope or DEFAULT_SCOPE[args.client]
    if scope not in SUPPORTED_SCOPES[args.client]:
        raise ConfigFileError(f"{args.client} has no {scope}-scope config file Sari writes.")
    # An HTTP entry names a URL, not a command: nothing of this machine to make portable.
    portable = (args.client == "claude-code" and not args.command and not args.config
                and not args.url)
    launcher = (Launcher(args.command) if args.command
                else Launcher(PORTABLE_COMMAND) if portable else default_launcher())
    path = args.config or config_path(args.client, scope, project, Path.home(), dict(os.environ))
    shown = ([portable_workspace(ws, project) for ws in workspaces]
             if args.client == "claude-code" else [str(ws) for ws in workspaces])
    entry = server_entry(args.client, launcher, shown)
    if args.url:
        from sari_core.cli.http_entry import http_entry, install_token
        entry = http_entry(args.client, args.url, install_token(args.token))
    changes = [mcp_change(args.client, path, args.name, entry)]
    if args.hooks:
        if args.client not in ("claude-code", "codex"):
            raise ConfigFileError("--hooks is for claude-code and codex (the clients with "
                                  "hook settings).")
        changes.append(native_hooks_change(args, project, path, launcher))
    if portable:
        changes[0].notes.append(PATH_NOTE.format(command=default_launcher().command))
        changes[0].notes.append(APPROVAL_NOTE.format(name=args.name))
    return changes


def native_hooks_change(args: argparse.Namespace, project: Path, config: Path,
                        launcher: Launcher) -> FileChange:
    """The client's hook settings with Sari's PreToolUse hook (and, for Claude Code, the
    plugins' own client hooks) added, every other hook kept."""
    url = base_url(args.hook_url or args.url)
    if args.client == "codex":
        path = codex_hooks_file(config)
        old_text = path.read_text(encoding="utf-8") if path.exists() else None
        data = read_json_object(path)
        command = thin_client_command("codex", url, token_file())
        updated = with_codex_pre_tool_use(data, command)
        change = FileChange(path, old_text, dump_json(updated) if updated != data or
                            old_text is None else old_text,
                            dump_json({"hooks": {"PreToolUse": updated["hooks"]["PreToolUse"][-1:]}}))
        change.notes.append(f"the hook asks `sari serve --transport http` at {url}: keep one "
                            "running (when it is down, the hook lets calls through and refuses "
                            "only secret files). Codex runs a hook once it is trusted: review "
                            "it in Codex when it asks. Codex before 0.124 needs `[features] "
                            "codex_hooks = true` in config.toml.")
        return change
    events = handled_client_events("claude-code", project)
    change = hooks_change(project, launcher, events) if events else None
    path = project / ".claude" / "settings.json"
    old_text = path.read_text(encoding="utf-8") if path.exists() else None
    data = json.loads(change.new_text) if change is not None else read_json_object(path)
    hook_type = args.hook_type or ("http" if args.url else "mcp_tool")
    hook = claude_pre_tool_use_hook(hook_type, args.name, url, token_file())
    updated = with_claude_pre_tool_use(data, [hook, *secret_guard_hooks()], args.name)
    snippet = {"hooks": {**(json.loads(change.snippet)["hooks"] if change else {}),
                         "PreToolUse": updated["hooks"]["PreToolUse"][-1:]}}
    new_text = old_text if old_text is not None and read_json_object(path) == updated \
        else dump_json(updated)
    result = FileChange(path, old_text, new_text, dump_json(snippet))
    if hook_type != "mcp_tool":
        result.notes.append(f"the PreToolUse hook asks `sari serve --transport http` at {url}"
                            + (" with the token in SARI_HTTP_TOKEN" if hook_type == "http"
                               else "") + ": keep one running.")
    return result


def handled_client_events(client: str, project: Path | None = None) -> set[str]:
    """The ``sari hook`` events of ``client`` some installed, enabled plugin or local
    policy answers (the operator's folder, as ``sari hook`` run in ``project`` finds it).

    A plugin declares them in its metadata (the events ``sari hook`` imports it for), else
    as ``client_hook_events`` (``{(client, event), ...}``); one that implements
    ``on_client_hook`` without declaring is taken to answer every event.
    """
    plugins, declarations = plugin_and_hook_entry_points()
    in_metadata = declared_client_hooks(plugins, declarations)
    pm = SariPluginManager()
    pm.load_entry_points(strict=False, entry_points=plugins)
    policy_folder = plugins_dir(workspace=project)
    if policy_folder is not None:
        load_local_policies(pm, policy_folder)
    handled: set[str] = set()
    for name, plugin in pm.list_name_plugin():
        if not callable(getattr(plugin, "on_client_hook", None)):
            continue
        declared = in_metadata.get(name, declared_attributes(plugin).client_hook_events)
        if declared is None:
            handled.update(sari_event for _, _, sari_event in CLAUDE_HOOKS)
        else:
            handled.update(event for owner, event in declared if owner == client)
    return handled


def _user_scope_claude(args: argparse.Namespace) -> int:
    """Claude Code keeps user-scope servers in its own state file: hand over the command.

    No workspace is named unless given: Claude Code starts the server in the project it
    runs in, which ``sari serve`` then serves.
    """
    launcher = Launcher(args.command) if args.command else default_launcher()
    workspaces = [str(ws) for ws in _workspaces(args)[1]] if args.workspace else []
    entry = server_entry("claude-code", launcher, workspaces)
    if args.url:
        from sari_core.cli.http_entry import http_entry, install_token
        entry = http_entry("claude-code", args.url, install_token(args.token))
    command = shlex.join(["claude", "mcp", "add-json", "--scope", "user", args.name,
                          json.dumps(entry)])
    if args.print_only:
        sys.stdout.write(dump_json(entry))
        print(f"# add it for every project with:\n{command}", file=sys.stderr)
        return 0
    print(f"sari install: Claude Code keeps user-scope servers in its own file; add Sari for "
          f"every project with:\n{command}", file=sys.stderr)
    return 1


def _print_changes(changes: list[FileChange], project: Path) -> None:
    """One document on stdout: the snippet itself, or one JSON object keyed by file."""
    for change in changes:
        print(f"# {change.path}", file=sys.stderr)
        for note in change.notes:
            print(f"# {note}", file=sys.stderr)
    if len(changes) == 1:
        sys.stdout.write(changes[0].snippet)
        return
    document = {}
    for change in changes:
        try:
            key = change.path.relative_to(project).as_posix()
        except ValueError:
            key = str(change.path)
        document[key] = json.loads(change.snippet)
    sys.stdout.write(dump_json(document))


def run(args: argparse.Namespace) -> int:
    if args.client == "claude-code" and args.scope == "user" and not args.config:
        return _user_scope_claude(args)
    try:
        changes = _plan(args)
    except ConfigFileError as exc:
        print(f"sari install: {exc}", file=sys.stderr)
        return 1
    if args.print_only:
        _print_changes(changes, _workspaces(args)[0])
        return 0
    for change in changes:
        if not change.changed:
            print(f"sari install: {change.path} already up to date")
        else:
            saved = backup(change.path, state_dir() / "backups") \
                if change.old_text is not None else None
            write_atomically(change.path, change.new_text)
            note = f" (previous version saved as {saved})" if saved else ""
            print(f"sari install: wrote {change.path}{note}")
        for note in change.notes:
            print(f"sari install: {note}")
    if args.client in ("claude-code", "cursor"):
        print("sari install: restart the client or reload its MCP servers to connect.")
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("install", "Add Sari to a client's MCP config (claude-code, codex, cursor, "
                 "claude-desktop); --print shows it instead.", configure, run)

