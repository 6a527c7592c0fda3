"""Each way a client's hook reaches Sari, and what happens when Sari is down or slow.

* the thin command hook (Codex's, or Claude Code's ``command`` type) run as the client
  runs it, ``python -I -S hook_client.py``, against ``sari serve --transport http``;
* the ``mcp_tool`` hook: the server's unlisted ``hook`` tool over an MCP connection.

Payloads are in each client's documented schema.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_secretguard")
pytest.importorskip("sari_budget")

from mcp import Client  # noqa: E402
from native_workspace import SECRET_VALUE, make_workspace  # noqa: E402
from sari_http import serve_http  # noqa: E402

from sari_core.kernel import Kernel  # noqa: E402
from sari_core.native import hook_client  # noqa: E402
from sari_core.replay.runner import policy_plugins  # noqa: E402
from sari_core.server import SariServer  # noqa: E402

TOKEN = "hooks-test-token-0123456789"


def codex_payload(workspace: Path, command: str) -> dict[str, Any]:
    """A Codex PreToolUse payload, fields as Codex documents them."""
    return {"session_id": "019a-codex-session", "transcript_path": None, "cwd": str(workspace),
            "hook_event_name": "PreToolUse", "model": "gpt-5-codex", "turn_id": "turn-1",
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "call_1"}


def claude_payload(workspace: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A Claude Code PreToolUse payload."""
    return {"session_id": "5f1c-claude-session", "transcript_path": "/tmp/t.jsonl",
            "cwd": str(workspace), "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "toolu_01"}


def thin_hook(client: str, url: str, payload: dict[str, Any], token_file: Path | None = None,
              timeout: float = 3.0) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """Run the thin hook as the client does; its answer (``{}`` for none) and the process."""
    argv = [sys.executable, "-I", "-S", hook_client.__file__, client, "--url", url,
            "--timeout", str(timeout)]
    if token_file is not None:
        argv += ["--token-file", str(token_file)]
    env = {key: value for key, value in os.environ.items() if key != hook_client.TOKEN_ENV}
    done = subprocess.run(argv, input=json.dumps(payload), capture_output=True, text=True,
                          timeout=60, env=env)
    return (json.loads(done.stdout) if done.stdout.strip() else {}), done


def decision(answered: dict[str, Any]) -> str | None:
    return answered.get("hookSpecificOutput", {}).get("permissionDecision")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("native") / "ws")


@pytest.fixture(scope="module")
def server_url(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {**os.environ, "SARI_HTTP_TOKEN": TOKEN,
           "SARI_PLUGINS": "secretguard,budget,aggregation,refgate"}
    log = tmp_path_factory.mktemp("log") / "serve.log"
    with serve_http(workspace, env, log) as served:
        yield served.url.removesuffix("/mcp")


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "http-token"
    path.write_text(TOKEN + "\n")
    return path


def test_codex_shell_read_of_a_secret_is_refused_by_the_resident_server(
        server_url: str, workspace: Path, token_file: Path) -> None:
    answered, done = thin_hook("codex", server_url, codex_payload(workspace, "cat .env"),
                               token_file)
    assert done.returncode == 0, done.stderr
    assert decision(answered) == "deny"
    reason = answered["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith(".env is a secret file; Sari does not serve its content.")
    assert "did not answer" not in reason and SECRET_VALUE not in reason  # the server's words


def test_codex_read_of_a_long_file_after_a_search_is_answered_with_the_definition(
        server_url: str, workspace: Path, token_file: Path) -> None:
    search = codex_payload(workspace, "grep -n 'def handler_31' pkg/big.py")
    assert thin_hook("codex", server_url, search, token_file)[0] == {}
    answered, _ = thin_hook("codex", server_url, codex_payload(workspace, "cat pkg/big.py"),
                            token_file)
    reason = answered["hookSpecificOutput"]["permissionDecisionReason"]
    assert "the definition the search matched (lines 1801-1858)" in reason
    assert "1801\tdef handler_31(request):" in reason


def test_claude_code_command_hook_narrows_and_leaves_short_files_alone(
        server_url: str, workspace: Path, token_file: Path) -> None:
    small = claude_payload(workspace, "Read", {"file_path": str(workspace / "pkg/small.py")})
    assert thin_hook("claude-code", server_url, small, token_file)[0] == {}


def test_without_the_token_the_server_is_not_asked_and_secrets_still_hold(
        server_url: str, workspace: Path) -> None:
    answered, done = thin_hook("codex", server_url, codex_payload(workspace, "cat .env"))
    assert done.returncode == 0 and "did not answer" in done.stderr
    assert decision(answered) == "deny"


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens there once closed


def test_with_sari_down_calls_go_ahead_except_secret_files(workspace: Path,
                                                           closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    answered, done = thin_hook("codex", url, codex_payload(workspace, "cat pkg/small.py"))
    assert done.returncode == 0 and answered == {}
    for payload in (codex_payload(workspace, "cat .env"),
                    claude_payload(workspace, "Read", {"file_path": str(workspace / ".env")}),
                    codex_payload(workspace, "cp ~/.ssh/id_rsa /tmp/k")):
        answered, done = thin_hook("codex", url, payload)
        assert done.returncode == 0 and decision(answered) == "deny", payload
    shared = claude_payload(workspace, "Read", {"file_path": str(workspace / ".env.example")})
    assert thin_hook("claude-code", url, shared)[0] == {}


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(sock.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()
    for conn in held:
        conn.close()


def test_with_sari_slow_the_hook_gives_up_and_the_call_goes_ahead(workspace: Path,
                                                                  silent_server: str) -> None:
    answered, done = thin_hook("codex", silent_server,
                               codex_payload(workspace, "cat pkg/small.py"), timeout=0.5)
    assert done.returncode == 0 and answered == {} and "timed out" in done.stderr
    answered, _ = thin_hook("codex", silent_server, codex_payload(workspace, "cat .env"),
                            timeout=0.5)
    assert decision(answered) == "deny"


def test_the_thin_hook_imports_nothing_of_sari() -> None:
    probe = ("import runpy, sys; sys.argv = ['hook', 'codex', '--url', 'http://127.0.0.1:9'];"
             "sys.stdin = open(__import__('os').devnull);"
             f"runpy.run_path({hook_client.__file__!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-I", "-S", "-c",
                           f"import sys\ntry:\n    exec({probe!r})\nexcept SystemExit:\n    pass\n"
                           "print(sorted(m for m in sys.modules if m.startswith(('sari', "
                           "'pydantic', 'mcp', 'ssl'))))"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


# --- the mcp_tool hook: the server's own `hook` tool -------------------------------------

@pytest.fixture
def served(tmp_path: Path) -> Iterator[SariServer]:
    root = make_workspace(tmp_path / "ws")
    kernel = Kernel(roots=[root], plugins=policy_plugins(["secretguard", "budget"]),
                    load_entry_points=False, analytics_sinks=[])
    yield SariServer(kernel)
    kernel.close()


async def test_mcp_tool_hook_answers_in_the_tool_s_text_and_shares_the_session(
        served: SariServer) -> None:
    root = served.kernel.roots[0]
    async with Client(served.lowlevel, mode="legacy") as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "hook" not in listed  # the model is not offered it
        # As Claude Code fills an mcp_tool hook's input: every value a string.
        arguments = {"client": "claude-code", "hook_event_name": "PreToolUse",
                     "tool_name": "Read", "session_id": "cc-1", "cwd": str(root),
                     "tool_input": json.dumps({"file_path": str(root / ".env")})}
        result = await client.call_tool("hook", arguments)
        assert not result.is_error
        answered = json.loads(result.content[0].text)
        assert decision(answered) == "deny"
        small = {**arguments, "tool_input": json.dumps({"file_path": str(root / "pkg/small.py")})}
        assert json.loads((await client.call_tool("hook", small)).content[0].text) == {}
        # The model's own read on this connection now counts in the client's session.
        own = await client.call_tool("read", {"mode": "file", "target": "pkg/small.py"})
    metrics = own.structured_content["meta"]["stabilization"]["metrics_snapshot"]
    # The native read of small.py (its 2 lines; native reads spend lines, not the read
    # count) and this one (a refused read spends nothing); a session of the connection's
    # own would have seen no native read.
    assert metrics["budget_native_reads"] == 1
    assert metrics["budget_reads_remaining"] == 25 - 1
    assert metrics["budget_lines_remaining"] == 2500 - 2 * 2


def test_doctor_s_probe_reaches_a_running_server(server_url: str) -> None:
    from sari_core.native.inspection import probe

    assert probe(server_url, "codex", TOKEN) is None
    assert probe(server_url, "codex", None) is not None  # refused without the token


@pytest.fixture
def html_server() -> Iterator[str]:
    """Something else on the port: it answers every request 200 with a web page."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = b"<html>not Sari</html>"
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_answer_that_is_not_sari_s_leaves_secret_files_refused(workspace: Path,
                                                                  html_server: str) -> None:
    answered, done = thin_hook("codex", html_server, codex_payload(workspace, "cat .env"))
    assert done.returncode == 0 and decision(answered) == "deny"
    assert thin_hook("codex", html_server, codex_payload(workspace, "cat pkg/small.py"))[0] == {}


async def test_under_strict_session_mode_the_hook_s_connection_shares_the_client_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Strict session mode: the hook's ``session_id`` names the client's session, so its
    native calls are served whole, and the model's own calls on the same connection are
    served in that session instead of being refused for naming none."""
    monkeypatch.setenv("SARI_STRICT_SESSION_ID", "1")
    root = make_workspace(tmp_path / "ws")
    kernel = Kernel(roots=[root], plugins=policy_plugins(["secretguard", "budget"]),
                    load_entry_points=False, analytics_sinks=[])
    try:
        served = SariServer(kernel)
        async with Client(served.lowlevel, mode="legacy") as client:
            unbound = await client.call_tool("read", {"mode": "file", "target": "pkg/small.py"})
            assert unbound.structured_content["error"]["code"] == "SESSION_ID_REQUIRED"
            arguments = {"client": "claude-code", "hook_event_name": "PreToolUse",
                         "tool_name": "Read", "session_id": "cc-strict", "cwd": str(root),
                         "tool_input": json.dumps({"file_path": str(root / "pkg/small.py")})}
            assert json.loads((await client.call_tool("hook", arguments)).content[0].text) == {}
            own = await client.call_tool("read", {"mode": "file", "target": "pkg/small.py"})
        assert own.structured_content["ok"] is True
        metrics = own.structured_content["meta"]["stabilization"]["metrics_snapshot"]
        assert metrics["budget_native_reads"] == 1  # the native read, in the same session
        assert metrics["budget_lines_remaining"] == 2500 - 2 * 2
    finally:
        kernel.close()
