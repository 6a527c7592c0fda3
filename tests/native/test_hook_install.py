"""``sari install --hooks`` for Claude Code and Codex, the plugin manifest, ``sari doctor``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sari_core import __version__
from sari_core.cli.main import main
from sari_core.native.hook_entries import (
    CLAUDE_MATCHER,
    HOOK_TIMEOUT,
    MCP_TOOL_INPUT,
    PLUGIN_GUARD_COMMAND,
    secret_guard_hooks,
)
from sari_core.native.inspection import inspect_hooks

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return folder


def test_claude_code_hook_types(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    assert main(["install", "claude-code", "--hooks", "--command", "sari"]) == 0
    [group] = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert group["matcher"] == CLAUDE_MATCHER and "Read" in group["matcher"].split("|")
    first, *guards = group["hooks"]
    assert first == {"type": "mcp_tool", "server": "sari", "tool": "hook",
                     "input": MCP_TOOL_INPUT, "timeout": HOOK_TIMEOUT}
    # The secret-file guard: a thin-client process for reads of secret files only.
    assert guards == secret_guard_hooks()
    assert {guard["if"] for guard in guards} >= {"Read(**/.env)", "Read(**/*.pem)"}
    assert all(guard["command"].endswith("hook_client.py claude-code --offline")
               for guard in guards)
    assert main(["install", "claude-code", "--hooks", "--command", "sari",
                 "--hook-type", "http", "--hook-url", "http://127.0.0.1:9000"]) == 0
    data = json.loads(settings.read_text())
    [group] = data["hooks"]["PreToolUse"]  # the earlier Sari hooks were replaced, not doubled
    hook, *guards = group["hooks"]
    assert hook["url"] == "http://127.0.0.1:9000/hooks/claude-code"
    assert hook["headers"] == {"Authorization": "Bearer $SARI_HTTP_TOKEN"}
    assert guards == secret_guard_hooks()
    assert "permissions" not in data


def test_codex_hooks_go_beside_its_config_and_keep_the_user_s(project: Path,
                                                                tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    codex.mkdir()
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}
    (codex / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [mine],
                                                            "Stop": [mine]}}))
    for _ in range(2):
        assert main(["install", "codex", "--hooks", "--hook-url", "http://127.0.0.1:9001"]) == 0
    data = json.loads((codex / "hooks.json").read_text())
    assert data["hooks"]["Stop"] == [mine]
    first, ours = data["hooks"]["PreToolUse"]
    assert first == mine and ours["matcher"] == "Bash"
    [hook] = ours["hooks"]
    assert hook["type"] == "command" and " -I -S " in hook["command"]
    assert "hook_client.py codex --url http://127.0.0.1:9001" in hook["command"]
    assert "[mcp_servers.sari]" in (codex / "config.toml").read_text()


def test_the_plugin_manifest_carries_the_hook_the_installer_writes() -> None:
    plugin = json.loads((REPOSITORY / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((REPOSITORY / ".claude-plugin" / "marketplace.json").read_text())
    assert plugin["name"] == "sari" and plugin["version"] == __version__
    assert plugin["mcpServers"]["sari"]["args"][0] == "serve"
    [group] = plugin["hooks"]["PreToolUse"]
    # A plugin's own server is named plugin:<plugin>:<server> in its hooks; the secret-file
    # guard runs the thin client from the plugin's folder with any python3.
    assert group == {"matcher": CLAUDE_MATCHER, "hooks": [{
        "type": "mcp_tool", "server": "plugin:sari:sari", "tool": "hook",
        "input": MCP_TOOL_INPUT, "timeout": HOOK_TIMEOUT},
        *secret_guard_hooks(PLUGIN_GUARD_COMMAND)]}
    assert (REPOSITORY / "sari_core" / "native" / "hook_client.py").exists()
    assert [entry["name"] for entry in market["plugins"]] == ["sari"]
    assert market["plugins"][0]["source"] == "./"


def test_doctor_says_which_hooks_are_installed_and_whether_they_answer(
        project: Path) -> None:
    [nothing] = inspect_hooks(project)
    assert nothing.status == "warn" and "no Sari PreToolUse hook" in nothing.detail
    assert main(["install", "claude-code", "--hooks", "--command", "sari"]) == 0
    found, guard = inspect_hooks(project)
    assert found.status == "ok" and "mcp_tool" in found.detail and "'sari'" in found.detail
    assert guard.status == "ok" and "refused on Read even when Sari does not answer" in \
        guard.detail
    assert main(["install", "codex", "--hooks", "--hook-url", "http://127.0.0.1:9"]) == 0
    claude, _, codex = inspect_hooks(project, dict(os.environ))
    assert codex.name == "codex hook" and codex.status == "warn"
    assert "does not answer" in codex.detail and "secret files still refused" in codex.detail
