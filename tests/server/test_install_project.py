"""``sari install`` leaves a project as it found it, apart from the client's own config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_install_cli import project  # noqa: F401 - the fixture

from sari_core.cli.main import main

GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
                          cwd=root, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


def test_claude_code_user_scope_print_gives_the_entry_and_the_command(project: Path,  # noqa: F811
                                                                      capsys) -> None:
    assert main(["install", "claude-code", "--scope", "user", "--print"]) == 0
    out, err = capsys.readouterr()
    entry = json.loads(out)
    assert entry["type"] == "stdio" and entry["args"] == ["serve"]
    assert Path(entry["command"]).is_absolute() or entry["command"] == sys.executable
    assert "claude mcp add-json --scope user sari" in err
    assert not (project / ".mcp.json").exists()


def test_hooks_print_is_one_json_document(project: Path, capsys,  # noqa: F811
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sari_persistence")
    monkeypatch.setenv("SARI_PLUGINS", "persistence")
    assert main(["install", "claude-code", "--hooks", "--print"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {".mcp.json", ".claude/settings.json"}
    assert "sari" in document[".mcp.json"]["mcpServers"]
    assert "PreCompact" in document[".claude/settings.json"]["hooks"]
    assert not (project / ".claude").exists()


def test_git_status_after_install_shows_only_the_clients_config(project: Path,  # noqa: F811
                                                                 capsys) -> None:
    other = {"mcpServers": {"docs": {"command": "docs-server", "args": []}}}
    (project / ".mcp.json").write_text(json.dumps(other), encoding="utf-8")
    (project / "app.py").write_text("x = 1\n", encoding="utf-8")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "start")
    assert main(["install", "claude-code", "--hooks"]) == 0
    assert main(["install", "claude-code", "--hooks", "--name", "sari-2"]) == 0  # a 2nd backup
    status = sorted(git(project, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert [line for line in status if not line.endswith(".claude/settings.json")] == \
        [" M .mcp.json"]
    committed = (project / ".mcp.json").read_text(encoding="utf-8")
    assert str(project) not in committed and sys.prefix not in committed
    assert json.loads(committed)["mcpServers"]["docs"] == other["mcpServers"]["docs"]
    out = capsys.readouterr().out
    assert "previous version saved as" in out


def test_post_tool_use_hook_only_when_a_plugin_handles_it(project: Path,  # noqa: F811
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys) -> None:
    pytest.importorskip("sari_persistence")
    monkeypatch.setenv("SARI_PLUGINS", "persistence")
    assert main(["install", "claude-code", "--hooks"]) == 0
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert set(hooks) == {"PreCompact", "SessionStart", "PreToolUse"}
    monkeypatch.setenv("SARI_PLUGINS", "none-installed")
    (project / ".claude" / "settings.json").unlink()
    assert main(["install", "claude-code", "--hooks"]) == 0
    # The PreToolUse hook of the client's own tools is the kernel's, always written.
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert set(hooks) == {"PreToolUse"}


def test_install_tells_how_to_approve_the_project_server(project: Path,  # noqa: F811
                                                         capsys) -> None:
    assert main(["install", "claude-code"]) == 0
    out = capsys.readouterr().out
    assert "pending approval" in out
    assert '"enabledMcpjsonServers": ["sari"]' in out
    assert "SARI_COMMAND=" in out
