"""The real Claude Code CLI with the PreToolUse hooks ``sari install claude-code --hooks``
writes: what the model is sent when it reads with Claude Code's own tools.

Each test is one offline session against the scripted stand-in model; the hooks are the
ones the installer writes (``mcp_tool`` into the Sari server the CLI runs, or ``http`` to
a running ``sari serve --transport http``), so these are the cases a user's session meets.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from claude_code import SessionRun, run_session
from messages_standin import ToolCall, Turn

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "tests" / "native"))
sys.path.insert(0, str(REPOSITORY / "tests" / "support"))

from native_workspace import SECRET_VALUE, make_workspace  # noqa: E402
from sari_http import serve_http  # noqa: E402

POLICIES = "budget,relevance,aggregation,refgate,secretguard"
REMINDER = "\n\n<system-reminder>"
TOKEN = "e2e-hooks-token-0123456789"


def install(workspace: Path, *options: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "sari_core.cli.main", "install", "claude-code",
                           "--hooks", "--workspace", str(workspace), *options],
                          cwd=workspace, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    settings: dict[str, object] = json.loads(
        (workspace / ".claude" / "settings.json").read_text())
    return settings


def reads(run: SessionRun) -> list[str]:
    """What the model was sent for each Read, in order (without the CLI's own reminder)."""
    results = run.script.tool_results()
    ids = [block["id"] for message in run.script.main_requests()[-1]["messages"]
           if isinstance(message["content"], list) for block in message["content"]
           if block.get("type") == "tool_use" and block.get("name") == "Read"]
    return [results[i].split(REMINDER, 1)[0] for i in ids]


def sent(run: SessionRun) -> str:
    """Everything the model was sent in its last turn."""
    return json.dumps(run.script.main_requests()[-1]["messages"])


def session_turns(workspace: Path) -> list[Turn]:
    big, small = workspace / "pkg" / "big.py", workspace / "pkg" / "small.py"
    return [
        Turn(calls=(ToolCall("Read", {"file_path": str(small)}),)),
        Turn(calls=(ToolCall("Grep", {"pattern": "def handler_23", "output_mode": "content",
                                      "-n": True}),)),
        Turn(calls=(ToolCall("Read", {"file_path": str(big)}),)),
        Turn(calls=(ToolCall("Read", {"file_path": str(big), "offset": 1495, "limit": 30}),)),
        Turn(calls=(ToolCall("Read", {"file_path": str(workspace / ".env")}),)),
        Turn(text="done"),
    ]


def assert_the_policies_reached_the_model(run: SessionRun) -> None:
    assert run.returncode == 0, run.stderr
    assert run.offline_attempts == []
    short, whole, extended, secret = reads(run)
    # A short file: untouched, as the CLI shows it, no note.
    assert short.splitlines()[:2] == ["1\tdef f():", "2\t    return 1"]
    assert "hook" not in short
    # The search for the definition: its body, in the words of Sari's symbol search.
    assert ('PreToolUse:Grep hook additional context: 1 match for \\"handler_23\\" (symbol)'
            '\\npkg/big.py\\n  1321-1378: def handler_23(request):') in sent(run)
    assert "1378 |     return value" in sent(run)
    # A whole read of the 2,400-line module after it: the lines around the definition, the
    # definition itself a reference to the search that showed it, in Sari's words.
    assert whole.startswith("PreToolUse:Read hook error: pkg/big.py lines"), whole[:300]
    assert "the definition the search matched (lines 1321-1378)" in whole
    assert "1321-1378\t(unchanged; shown in an earlier read)" in whole
    # A read ending inside a definition: extended to its end (the updated input).
    numbered = [line.split("\t", 1)[0] for line in extended.splitlines() if "\t" in line]
    assert numbered[0] == "1495" and numbered[-1] == "1558", extended[:300]
    assert "function handler_26 (lines 1501-1558)" in sent(run)
    # The secret: refused, and its value never sent.
    assert secret.startswith("PreToolUse:Read hook error: "), secret
    assert ".env is a secret file; Sari does not serve its content." in secret, secret
    assert SECRET_VALUE not in sent(run)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


def test_mcp_tool_hooks_put_claude_code_s_own_reads_through_sari(
        claude: Path, workspace: Path, tmp_path: Path) -> None:
    settings = install(workspace)
    [group] = settings["hooks"]["PreToolUse"]  # type: ignore[index]
    assert group["hooks"][0]["type"] == "mcp_tool"
    run = run_session(claude, workspace, tmp_path / "home", session_turns(workspace),
                      "Find the handler.", allowed_tools=("Read", "Grep"),
                      sari_env={"SARI_PLUGINS": POLICIES})
    assert_the_policies_reached_the_model(run)


def test_http_hooks_to_a_running_server_do_the_same(claude: Path, workspace: Path,
                                                    tmp_path: Path) -> None:
    env = {**os.environ, "SARI_HTTP_TOKEN": TOKEN, "SARI_PLUGINS": POLICIES}
    with serve_http(workspace, env, tmp_path / "serve.log") as served:
        base = served.url.removesuffix("/mcp")
        settings = install(workspace, "--hook-type", "http", "--hook-url", base)
        [group] = settings["hooks"]["PreToolUse"]  # type: ignore[index]
        assert group["hooks"][0]["type"] == "http"
        run = run_session(claude, workspace, tmp_path / "home", session_turns(workspace),
                          "Find the handler.", allowed_tools=("Read", "Grep"),
                          sari_env={"SARI_PLUGINS": "none"},
                          extra_env={"SARI_HTTP_TOKEN": TOKEN})
    assert_the_policies_reached_the_model(run)


def test_with_sari_down_the_session_goes_on_and_secret_files_stay_refused(
        claude: Path, workspace: Path, tmp_path: Path) -> None:
    install(workspace)
    small, secret = workspace / "pkg" / "small.py", workspace / ".env"
    turns = [Turn(calls=(ToolCall("Read", {"file_path": str(small)}),)),
             Turn(calls=(ToolCall("Read", {"file_path": str(secret)}),)),
             Turn(text="done")]
    broken = [sys.executable, "-c", "import sys; sys.exit(3)"]  # the server never starts
    run = run_session(claude, workspace, tmp_path / "home", turns, "Read.",
                      allowed_tools=("Read",), serve_argv=broken)
    assert run.returncode == 0, run.stderr
    assert run.output()["result"] == "done"
    short, refused = reads(run)
    assert short.splitlines()[:2] == ["1\tdef f():", "2\t    return 1"]
    # The secret-file guard beside the failed hook refused it with its own list.
    assert ".env is a secret file; Sari does not serve its content" in refused, refused
    assert SECRET_VALUE not in sent(run)


def test_the_repository_s_plugin_manifest_passes_the_cli_s_validation(claude: Path) -> None:
    done = subprocess.run([str(claude), "plugin", "validate", str(REPOSITORY)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "DISABLE_TELEMETRY": "1",
                               "DISABLE_AUTOUPDATER": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout + done.stderr


def test_claude_code_s_bash_reads_and_searches_go_through_sari_too(
        claude: Path, workspace: Path, tmp_path: Path) -> None:
    """Claude Code's native builds search through Bash: a grep, a cat of the long module
    after it (narrowed to the definition with sed), a flooding grep (capped), a cat of .env."""
    install(workspace)
    turns = [Turn(calls=(ToolCall("Bash", {"command": "grep -n 'def handler_23' pkg/big.py"}),)),
             Turn(calls=(ToolCall("Bash", {"command": "cat pkg/big.py"}),)),
             Turn(calls=(ToolCall("Bash", {"command": "grep -rn value pkg"}),)),
             Turn(calls=(ToolCall("Bash", {"command": "cat .env"}),)),
             Turn(text="done")]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Find the handler.",
                      allowed_tools=("Bash",), sari_env={"SARI_PLUGINS": POLICIES})
    assert run.returncode == 0, run.stderr
    results = run.script.tool_results()
    ids = [block["id"] for message in run.script.main_requests()[-1]["messages"]
           if isinstance(message["content"], list) for block in message["content"]
           if block.get("type") == "tool_use"]
    search, whole, flood, secret = (results[i].split(REMINDER, 1)[0] for i in ids)
    assert search.strip() == "1321:def handler_23(request):"
    lines = whole.splitlines()
    assert "def handler_23(request):" in lines and len(lines) < 120, len(lines)
    assert "Shown: the definition the search matched (lines 1321-1378)" in sent(run)
    assert len(flood.splitlines()) == 100, len(flood.splitlines())
    assert "Output capped at 100 lines" in sent(run)
    assert ".env is a secret file" in secret and SECRET_VALUE not in sent(run)


def _as_published(tmp_path: Path) -> Path:
    """This repository's files as its marketplace serves them: without the folders a
    checkout grows (``.tox`` holds gigabytes of environments, which the install would copy,
    and slowly, on a busy machine)."""
    copy = tmp_path / "marketplace"
    shutil.copytree(REPOSITORY, copy, ignore=shutil.ignore_patterns(
        ".git", ".tox", ".venv", "node_modules", "__pycache__", ".pytest_cache",
        "*.egg-info"))
    return copy


def test_the_plugin_brings_the_server_and_its_hooks_in_one_install(
        claude: Path, workspace: Path, tmp_path: Path) -> None:
    """``claude plugin install`` from this repository's marketplace, and nothing else: the
    session gets Sari's server and the PreToolUse hooks."""
    home = tmp_path / "home"
    config = home / ".claude"
    config.mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config),
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    for argv in (["plugin", "marketplace", "add", str(_as_published(tmp_path))],
                 ["plugin", "install", "sari@sari"]):
        done = subprocess.run([str(claude), *argv], capture_output=True, text=True,
                              timeout=120, env=env, cwd=workspace)
        assert done.returncode == 0, done.stdout + done.stderr
    sari = Path(sys.executable).parent / "sari"
    run = run_session(claude, workspace, home, session_turns(workspace), "Find the handler.",
                      allowed_tools=("Read", "Grep"), own_mcp_config=False,
                      extra_env={"SARI_COMMAND": str(sari), "SARI_PLUGINS": POLICIES,
                                 "PATH": f"{sari.parent}{os.pathsep}{os.environ['PATH']}"})
    assert_the_policies_reached_the_model(run)
