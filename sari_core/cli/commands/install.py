"""``sari install CLIENT``: add Sari to a coding client's MCP configuration.

Writes (or, with ``--print``, prints) the client's documented config; other
servers already configured there are kept, and the file is backed up first.
``--hooks`` (Claude Code) also adds Sari's client hooks to the project's
``.claude/settings.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sari_core.cli.client_setup import (
    CLIENTS,
    DEFAULT_SCOPE,
    SUPPORTED_SCOPES,
    FileChange,
    Launcher,
    config_path,
    default_launcher,
    hooks_change,
    mcp_change,
    server_entry,
)
from sari_core.cli.config_files import ConfigFileError, backup, write_atomically
from sari_core.commands import CommandRegistry


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("client", choices=CLIENTS, help="the client to configure")
    parser.add_argument("--workspace", "-w", action="append", metavar="PATH", default=[],
                        help="workspace the server serves (repeatable; default: the current "
                             "folder, which is also the project whose config is written)")
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the configuration instead of writing it")
    parser.add_argument("--scope", choices=("project", "user"),
                        help="project or user configuration (default: project for "
                             "claude-code and cursor, user for codex and claude-desktop)")
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
                        help="claude-code: also add Sari's hooks (PostToolUse, PreCompact, "
                             "SessionStart) to the project's .claude/settings.json")


def _plan(args: argparse.Namespace) -> list[FileChange]:
    workspaces = [Path(p).expanduser().resolve() for p in args.workspace] or [Path.cwd().resolve()]
    project = workspaces[0]
    scope = args.scope or DEFAULT_SCOPE[args.client]
    if scope not in SUPPORTED_SCOPES[args.client]:
        hint = (" For every project, run: claude mcp add-json --scope user "
                f"{args.name} '<entry from --print>'." if args.client == "claude-code" else "")
        raise ConfigFileError(f"{args.client} has no {scope}-scope config file Sari writes.{hint}")
    launcher = Launcher(args.command) if args.command else default_launcher()
    path = args.config or config_path(args.client, scope, project, Path.home(), dict(os.environ))
    entry = server_entry(args.client, launcher, workspaces)
    if args.url:
        from sari_core.cli.http_entry import http_entry, install_token
        entry = http_entry(args.client, args.url, install_token(args.token))
    changes = [mcp_change(args.client, path, args.name, entry)]
    if args.hooks:
        if args.client != "claude-code":
            raise ConfigFileError("--hooks is for claude-code (the client with hook settings).")
        changes.append(hooks_change(project, launcher))
    return changes


def run(args: argparse.Namespace) -> int:
    try:
        changes = _plan(args)
    except ConfigFileError as exc:
        print(f"sari install: {exc}", file=sys.stderr)
        return 1
    if args.print_only:
        for index, change in enumerate(changes):
            print(f"# {change.path}", file=sys.stderr)
            if index:
                print()
            sys.stdout.write(change.snippet)
        return 0
    for change in changes:
        if not change.changed:
            print(f"sari install: {change.path} already up to date")
            continue
        saved = backup(change.path) if change.old_text is not None else None
        write_atomically(change.path, change.new_text)
        note = f" (previous version saved as {saved})" if saved else ""
        print(f"sari install: wrote {change.path}{note}")
    if args.client in ("claude-code", "cursor"):
        print("sari install: restart the client or reload its MCP servers to connect.")
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("install", "Add Sari to a client's MCP config (claude-code, codex, cursor, "
                 "claude-desktop); --print shows it instead.", configure, run)

