"""Run the real Codex CLI, offline, against a scripted stand-in of the Responses API.

``python tests/e2e/codex_cli.py PREFIX`` installs the pinned ``@openai/codex`` with npm
into ``PREFIX`` (tox's ``commands_pre``); where npm is missing it prints why and exits 0,
and the Codex tests skip with the same reason. :func:`run_codex` runs ``codex exec`` in a
workspace with a private ``CODEX_HOME`` whose ``config.toml`` names the stand-in as the
model provider; every other outbound connection goes to a proxy that refuses it.

:class:`ResponsesStandIn` listens on 127.0.0.1, records each request, and answers it with
the next scripted turn — a call of Codex's shell tool (``exec_command``) or a final text —
streamed as the Responses API streams it (``response.created``,
``response.output_item.done``, ``response.completed``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from claude_code import RefusingProxy

CODEX_VERSION = "0.171.0"
PREFIX_VARIABLE = "SARI_CODEX_PREFIX"
SESSION_TIMEOUT = 120
PROVIDER = """\
model = "standin-model"
model_provider = "standin"

[model_providers.standin]
name = "standin"
base_url = "{url}/v1"
env_key = "STANDIN_API_KEY"
wire_api = "responses"
"""


def codex_executable() -> tuple[Path | None, str]:
    """The installed ``codex`` binary, or ``None`` and the reason it is missing."""
    prefix = os.environ.get(PREFIX_VARIABLE)
    if prefix and (Path(prefix) / "node_modules" / ".bin" / "codex").exists():
        return Path(prefix) / "node_modules" / ".bin" / "codex", ""
    if shutil.which("npm") is None:
        return None, "npm is not installed, so the Codex CLI could not be installed"
    if not prefix:
        return None, (f"{PREFIX_VARIABLE} is not set: run `tox -e claude`, which installs "
                      f"@openai/codex@{CODEX_VERSION} with npm")
    return None, f"no codex executable under {prefix} (npm install failed?)"


@dataclass
class ResponsesStandIn:
    """The Responses API for one scripted session: each request gets the next turn."""

    turns: Sequence[dict[str, Any]]
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # model lists and the like: nothing here
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                data = stand_in.answer(json.loads(body or b"{}"))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, body: dict[str, Any]) -> bytes:
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
        turn = self.turns[index] if index < len(self.turns) else {"text": "done"}
        if "cmd" in turn:
            item: dict[str, Any] = {
                "type": "function_call", "id": f"fc_{index}", "call_id": f"call_{index}",
                "name": "exec_command", "arguments": json.dumps({"cmd": turn["cmd"]})}
        else:
            item = {"type": "message", "role": "assistant", "id": f"msg_{index}",
                    "content": [{"type": "output_text", "text": turn["text"]}]}
        events = [
            {"type": "response.created", "response": {"id": f"resp_{index}"}},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {
                "id": f"resp_{index}", "usage": {"input_tokens": 10, "output_tokens": 5,
                                                  "total_tokens": 15}}},
        ]
        return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n"
                       for e in events).encode()

    def outputs(self) -> dict[str, str]:
        """What the model was sent for each shell call, by call id (the last request)."""
        found: dict[str, str] = {}
        for item in self.requests[-1].get("input", []) if self.requests else []:
            if item.get("type") == "function_call_output":
                output = item.get("output")
                found[item["call_id"]] = output if isinstance(output, str) else json.dumps(output)
        return found

    def __enter__(self) -> ResponsesStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@dataclass
class CodexRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    offline_attempts: list[str]


def codex_home(home: Path, stand_in_url: str) -> Path:
    """A private ``CODEX_HOME`` whose config names the stand-in as the model provider."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(PROVIDER.format(url=stand_in_url))
    return home


def run_codex(codex: Path, workspace: Path, home: Path, stand_in: ResponsesStandIn,
              prompt: str, extra_env: dict[str, str] | None = None) -> CodexRun:
    """Run ``codex exec`` in ``workspace`` with ``home`` as ``CODEX_HOME``.

    Hooks run without Codex's interactive trust review (``--dangerously-bypass-hook-trust``:
    the test wrote them itself).
    """
    with RefusingProxy() as proxy:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("OPENAI_", "CODEX_"))}
        env.update({"CODEX_HOME": str(home), "STANDIN_API_KEY": "standin-key",
                    "HTTPS_PROXY": proxy.url, "HTTP_PROXY": proxy.url,
                    "https_proxy": proxy.url, "http_proxy": proxy.url,
                    "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
        env.update(extra_env or {})
        argv = [str(codex), "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check",
                "-s", "read-only", prompt]
        done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True,
                              timeout=SESSION_TIMEOUT, stdin=subprocess.DEVNULL)
        return CodexRun(done.returncode, done.stdout, done.stderr, stand_in.outputs(),
                        list(proxy.attempts))


def install(prefix: str) -> int:
    npm = shutil.which("npm")
    if npm is None:
        print("npm is not installed: the Codex end-to-end tests will be skipped.")
        return 0
    package = Path(prefix) / "node_modules" / "@openai" / "codex" / "package.json"
    if package.exists() and f'"version": "{CODEX_VERSION}"' in package.read_text():
        print(f"Codex {CODEX_VERSION} already installed in {prefix}")
        return 0
    started = time.monotonic()
    done = subprocess.run([npm, "install", "--prefix", prefix, "--no-audit", "--no-fund",
                           "--no-save", f"@openai/codex@{CODEX_VERSION}"], check=False)
    print(f"npm install @openai/codex@{CODEX_VERSION}: exit {done.returncode} in "
          f"{time.monotonic() - started:.1f} s")
    return done.returncode


if __name__ == "__main__":
    sys.exit(install(sys.argv[1]))
