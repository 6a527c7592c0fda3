"""Which of Sari's client hooks are installed, and whether they reach a server (``sari doctor``).

Claude Code's hooks are read from the project's ``.claude/settings.json`` and
``.claude/settings.local.json``; Codex's from ``hooks.json`` beside its user and project
``config.toml``. An ``mcp_tool`` hook reaches the server of that name in the project's
``.mcp.json`` (Claude Code starts it); an ``http`` or command hook is asked a call Sari has
nothing to say about, which must come back as an empty answer.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from sari_core.native import hook_client
from sari_core.native.hook_entries import asks_sari, is_sari_pre_tool_use

Status = Literal["ok", "warn", "error"]
PROBE = {"hook_event_name": "PreToolUse", "tool_name": "TodoWrite", "tool_input": {},
         "session_id": "sari-doctor"}


@dataclass(frozen=True)
class HookFinding:
    name: str
    status: Status
    detail: str


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _sari_hooks(settings: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(matcher, hook) of every Sari PreToolUse hook in a settings object."""
    found = []
    hooks = settings.get("hooks")
    for group in (hooks or {}).get("PreToolUse", []) if isinstance(hooks, dict) else []:
        if not isinstance(group, dict):
            continue
        for hook in group.get("hooks") or []:
            if isinstance(hook, dict) and asks_sari(hook) and is_sari_pre_tool_use(
                    hook, str(hook.get("server"))):
                found.append((str(group.get("matcher") or "*"), hook))
    return found


def probe(url: str, client: str, token: str | None, timeout: float = 3.0) -> str | None:
    """None when the server at ``url`` answers a probe of ``client``'s hook; else why not."""
    started = time.perf_counter()
    try:
        answer = hook_client.post(url, f"/hooks/{client}", json.dumps(PROBE).encode(), token,
                                  timeout)
        json.loads(answer or b"{}")
    except (OSError, ValueError) as exc:
        return str(exc)
    return None if time.perf_counter() - started <= timeout else "too slow"


def _command_target(command: str) -> tuple[str, str | None]:
    words = shlex.split(command)

    def option(name: str) -> str | None:
        return words[words.index(name) + 1] if name in words[:-1] else None

    return option("--url") or hook_client.DEFAULT_URL, option("--token-file")


def _reach(hook: dict[str, Any], client: str, project: Path) -> tuple[Status, str]:
    kind = hook.get("type")
    if kind == "mcp_tool":
        server = str(hook.get("server"))
        servers = _json(project / ".mcp.json").get("mcpServers") or {}
        if server not in servers:
            return "error", (f"calls the server {server!r}, which the project's .mcp.json does "
                             "not define: the client's own tools go ahead unchecked")
        return "ok", f"calls the hook tool of the server {server!r} Claude Code runs (.mcp.json)"
    if kind == "http":
        url = str(hook.get("url", ""))
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        token = os.environ.get(hook_client.TOKEN_ENV)
    else:
        base, token_file = _command_target(str(hook.get("command", "")))
        token = hook_client._token(token_file)  # noqa: SLF001 - the same lookup as the hook's
    problem = probe(base, client, token)
    if problem is not None:
        return "warn", (f"{base} does not answer ({problem}): calls go ahead untouched, "
                        "secret files still refused; start `sari serve --transport http`")
    return "ok", f"{base} answers"


def _guard_finding(settings: Mapping[str, Any], path: Path) -> HookFinding:
    """Whether the secret-file guard stands beside Sari's hook (it holds when Sari is down)."""
    hooks = settings.get("hooks") or {}
    guards = [hook for group in hooks.get("PreToolUse", []) if isinstance(group, dict)
              for hook in group.get("hooks") or []
              if isinstance(hook, dict) and "--offline" in str(hook.get("command", ""))]
    if not guards:
        return HookFinding("claude-code secret guard", "warn", (
            f"none in {path}: with Sari down or slow, Claude Code's Read of a secret file goes "
            "ahead; rerun `sari install claude-code --hooks`"))
    return HookFinding("claude-code secret guard", "ok", (
        f"{len(guards)} secret-file globs refused on Read even when Sari does not answer"))


def inspect_hooks(project: Path, environ: Mapping[str, str] | None = None) -> list[HookFinding]:
    """One finding per installed Sari hook, or one saying none is installed."""
    env = os.environ if environ is None else environ
    findings: list[HookFinding] = []
    for name in ("settings.json", "settings.local.json"):
        path = project / ".claude" / name
        settings = _json(path)
        sari_hooks = _sari_hooks(settings)
        for matcher, hook in sari_hooks:
            status, detail = _reach(hook, "claude-code", project)
            findings.append(HookFinding("claude-code hook", status,
                                        f"PreToolUse {hook.get('type')} on {matcher} "
                                        f"({path}): {detail}"))
        if sari_hooks:
            findings.append(_guard_finding(settings, path))
    codex_home = Path(env.get("CODEX_HOME") or Path.home() / ".codex")
    for path in (codex_home / "hooks.json", project / ".codex" / "hooks.json"):
        for matcher, hook in _sari_hooks(_json(path)):
            status, detail = _reach(hook, "codex", project)
            findings.append(HookFinding("codex hook", status,
                                        f"PreToolUse command on {matcher} ({path}): {detail}"))
    if not findings:
        findings.append(HookFinding("client hooks", "warn", (
            "no Sari PreToolUse hook installed: the client's own Read, Grep and Bash bypass "
            "Sari's policies; run `sari install claude-code --hooks` (or codex)")))
    return findings
