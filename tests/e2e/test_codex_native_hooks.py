"""The real Codex CLI with the hook ``sari install codex --hooks`` writes: its shell reads go
through Sari's policies, answered by a resident ``sari serve --transport http``.

Each test is one offline ``codex exec`` session against the scripted Responses stand-in.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from codex_cli import ResponsesStandIn, codex_executable, codex_home, run_codex

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "tests" / "native"))
sys.path.insert(0, str(REPOSITORY / "tests" / "support"))

from native_workspace import SECRET_VALUE, make_workspace  # noqa: E402
from sari_http import serve_http  # noqa: E402

POLICIES = "budget,relevance,aggregation,refgate,secretguard"
TOKEN = "e2e-codex-token-0123456789"
BLOCKED = "Command blocked by PreToolUse hook: "


@pytest.fixture(scope="session")
def codex() -> Path:
    executable, reason = codex_executable()
    if executable is None:
        pytest.skip(f"Codex end-to-end tests skipped: {reason}")
    return executable


def install(workspace: Path, home: Path, url: str) -> None:
    done = subprocess.run([sys.executable, "-m", "sari_core.cli.main", "install", "codex",
                           "--hooks", "--hook-url", url, "--workspace", str(workspace)],
                          cwd=workspace, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CODEX_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    assert (home / "hooks.json").exists()


TURNS = [{"cmd": "cat pkg/small.py"},
         {"cmd": "grep -n 'def handler_23' pkg/big.py"},
         {"cmd": "cat pkg/big.py"},
         {"cmd": "cat .env"},
         {"text": "done"}]


def test_codex_s_shell_reads_go_through_sari(codex: Path, tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    env = {**os.environ, "SARI_HTTP_TOKEN": TOKEN, "SARI_PLUGINS": POLICIES}
    with serve_http(workspace, env, tmp_path / "serve.log") as served, \
            ResponsesStandIn(TURNS) as stand_in:
        home = codex_home(tmp_path / "codex-home", stand_in.url)
        install(workspace, home, served.url.removesuffix("/mcp"))
        run = run_codex(codex, workspace, home, stand_in, "Find the handler.",
                        extra_env={"SARI_HTTP_TOKEN": TOKEN})
    assert run.returncode == 0, run.stderr[-3000:]
    # (Codex's own update and catalog checks went to the proxy, which refused them.)
    small, search, whole, secret = (run.outputs[f"call_{i}"] for i in range(4))
    assert "def f():" in small and BLOCKED not in small  # untouched
    assert "1321:def handler_23(request):" in search
    # The whole read of the 2,400-line module: refused with the matched definition itself.
    assert whole.startswith(BLOCKED), whole[:300]
    assert "the definition the search matched (lines 1321-1378)" in whole
    assert "1321\tdef handler_23(request):" in whole and "2400\t" not in whole
    assert secret.startswith(BLOCKED + ".env is a secret file"), secret
    assert SECRET_VALUE not in str(stand_in.requests)


def test_with_sari_down_codex_goes_on_and_secret_files_stay_refused(codex: Path,
                                                                   tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"  # nothing listens once closed
    turns = [{"cmd": "cat pkg/small.py"}, {"cmd": "cat .env"}, {"text": "done"}]
    with ResponsesStandIn(turns) as stand_in:
        home = codex_home(tmp_path / "codex-home", stand_in.url)
        install(workspace, home, closed)
        run = run_codex(codex, workspace, home, stand_in, "Read.")
    assert run.returncode == 0, run.stderr[-3000:]
    small, secret = run.outputs["call_0"], run.outputs["call_1"]
    assert "def f():" in small
    assert secret.startswith(BLOCKED) and ".env is a secret file" in secret, secret
    assert SECRET_VALUE not in str(stand_in.requests)
