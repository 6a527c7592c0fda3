"""Run the real Claude Code CLI, offline, against ``sari serve`` and a scripted model.

:func:`run_session` starts one non-interactive Claude Code session (``claude -p``)
in a workspace, with Sari as its only MCP server (``--mcp-config`` plus
``--strict-mcp-config``), the Messages API replaced by :class:`MessagesStandIn`, and
a private home and config folder so nothing of the machine's own Claude set-up is
read or written. Every outbound connection other than 127.0.0.1 is sent to a proxy
that refuses it and counts it, so a test can prove the session stayed offline.

The CLI comes from npm (``@anthropic-ai/claude-code``, the version in
``CLAUDE_CODE_VERSION``), installed by tox into ``SARI_CLAUDE_CODE_PREFIX``;
:func:`claude_executable` finds it or says why it is not there.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from messages_standin import MessagesStandIn, Script, Turn

CLAUDE_CODE_VERSION = "2.1.330"
PREFIX_VARIABLE = "SARI_CLAUDE_CODE_PREFIX"
SESSION_TIMEOUT = 120

# Everything Claude Code would otherwise send or fetch besides the Messages API.
OFFLINE_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
    "CLAUDE_CODE_USE_BEDROCK": "",
    "CLAUDE_CODE_USE_VERTEX": "",
    "ANTHROPIC_API_KEY": "sk-ant-standin-key",
    "ANTHROPIC_MODEL": "claude-sonnet-4-5-20250929",
    "ANTHROPIC_SMALL_FAST_MODEL": "claude-haiku-4-5-20251001",
    "MCP_TIMEOUT": "60000",
    # MCP tools listed up front (not behind tool search), servers connected before turn 1.
    "ENABLE_TOOL_SEARCH": "false",
    "MCP_CONNECTION_NONBLOCKING": "0",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}


def claude_executable() -> tuple[Path | None, str]:
    """The installed ``claude`` binary, or ``None`` and the reason it is missing."""
    prefix = os.environ.get(PREFIX_VARIABLE)
    candidates = [Path(prefix) / "node_modules" / ".bin" / "claude"] if prefix else []
    found = shutil.which("claude")
    if found and os.environ.get("SARI_E2E_SYSTEM_CLAUDE") == "1":
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.exists():
            return candidate, ""
    if shutil.which("npm") is None:
        return None, "npm is not installed, so Claude Code could not be installed"
    if not prefix:
        return None, (f"{PREFIX_VARIABLE} is not set: run `tox -e claude`, which installs "
                      f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} with npm")
    return None, f"no claude executable under {prefix} (npm install failed?)"


class RefusingProxy:
    """An HTTP(S) proxy on 127.0.0.1 that refuses every connection and remembers it."""

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stopped:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    head = conn.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
                except OSError:
                    head = "?"
                self.attempts.append(head)
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")

    def __enter__(self) -> RefusingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped = True
        self._socket.close()


@dataclass
class SessionRun:
    """What one Claude Code session did."""

    returncode: int
    stdout: str
    stderr: str
    script: Script
    transcripts: list[Path]
    offline_attempts: list[str] = field(default_factory=list)

    def output(self) -> dict[str, object]:
        """The ``--output-format json`` result line."""
        parsed: dict[str, object] = json.loads(self.stdout.strip().splitlines()[-1])
        return parsed


def sari_command() -> list[str]:
    """How Claude Code starts Sari: the ``sari`` script of the running interpreter."""
    script = Path(sys.executable).parent / "sari"
    return [str(script)] if script.exists() else [sys.executable, "-m", "sari_core.cli.main"]


def mcp_config(workspace: Path, env: dict[str, str],
               serve_argv: Sequence[str] | None = None,
               url: str | None = None) -> dict[str, object]:
    """The CLI's MCP config for Sari: ``sari serve --workspace WORKSPACE``, or ``serve_argv``
    (the whole command line) when given, or a server already serving HTTP at ``url``."""
    if url is not None:
        return {"mcpServers": {"sari": {"type": "http", "url": url}}}
    argv = list(serve_argv) if serve_argv is not None else \
        [*sari_command(), "serve", "--workspace", str(workspace)]
    return {"mcpServers": {"sari": {"type": "stdio", "command": argv[0], "args": argv[1:],
                                    "env": env}}}


def run_session(claude: Path, workspace: Path, home: Path, turns: Sequence[Turn], prompt: str,
                *, allowed_tools: Sequence[str] = ("mcp__sari__search", "mcp__sari__read"),
                sari_env: dict[str, str] | None = None,
                extra_env: dict[str, str] | None = None,
                extra_args: Sequence[str] = (),
                serve_argv: Sequence[str] | None = None,
                mcp_url: str | None = None, own_mcp_config: bool = True) -> SessionRun:
    """Run one ``claude -p`` session in ``workspace`` and return what happened.

    :param claude: the Claude Code executable.
    :param workspace: the project folder (Claude Code's working directory, Sari's workspace).
    :param home: an empty folder used as HOME and Claude Code's config folder.
    :param turns: the model's scripted turns.
    :param prompt: the user's message.
    :param allowed_tools: tools the session may call without asking.
    :param sari_env: environment for ``sari serve`` (e.g. ``SARI_PLUGINS``).
    :param extra_env: more environment for the CLI (and so for its hooks).
    :param extra_args: more command-line arguments for the CLI (``--disallowedTools Read``).
    :param serve_argv: how the CLI starts Sari (default ``sari serve --workspace WORKSPACE``).
    :param mcp_url: connect to Sari serving streamable HTTP there instead of starting it.
    :param own_mcp_config: pass Sari as the only MCP server (``--mcp-config``,
        ``--strict-mcp-config``); False leaves the servers to the CLI's own settings (a
        plugin's server).
    :return: the :class:`SessionRun`.
    """
    home.mkdir(parents=True, exist_ok=True)
    config_dir = home / ".claude"
    config_path = home / "mcp.json"
    config_path.write_text(json.dumps(mcp_config(workspace, dict(sari_env or {}), serve_argv,
                                                 mcp_url)))
    with MessagesStandIn(turns) as api, RefusingProxy() as proxy:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("ANTHROPIC_", "CLAUDE_"))}
        env.update(OFFLINE_ENV)
        env.update({"HOME": str(home), "CLAUDE_CONFIG_DIR": str(config_dir),
                    "ANTHROPIC_BASE_URL": api.base_url, "HTTPS_PROXY": proxy.url,
                    "HTTP_PROXY": proxy.url, "https_proxy": proxy.url,
                    "http_proxy": proxy.url})
        env.update(extra_env or {})
        servers = ["--mcp-config", str(config_path), "--strict-mcp-config"] \
            if own_mcp_config else []
        argv = [str(claude), "-p", prompt, "--output-format", "json", *servers,
                "--allowedTools", ",".join(allowed_tools), "--max-turns", "20", *extra_args]
        completed = subprocess.run(argv, cwd=workspace, env=env, capture_output=True,
                                   text=True, timeout=SESSION_TIMEOUT,
                                   stdin=subprocess.DEVNULL)
        transcripts = sorted((config_dir / "projects").glob("*/*.jsonl"))
        return SessionRun(completed.returncode, completed.stdout, completed.stderr, api.script,
                          transcripts, list(proxy.attempts))
