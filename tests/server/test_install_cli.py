"""``sari install``: each client's documented config, written without clobbering others."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from sari_core.cli.main import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

STDIO_ENTRY_KEYS = {"type", "command", "args", "env"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("SARI_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def backups(path: Path) -> list[Path]:
    """Backups of ``path``: in Sari's state folder, never next to the file."""
    assert not list(path.parent.glob(f"{path.name}*.bak"))
    folder = Path(os.environ["SARI_STATE_DIR"]) / "backups"
    return sorted(folder.glob(f"*-{path.name}.*.bak"))


def test_claude_code_print_is_the_documented_mcp_json(project: Path, capsys) -> None:
    assert main(["install", "claude-code", "--print"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document) == ["mcpServers"]
    entry = document["mcpServers"]["sari"]
    assert set(entry) == STDIO_ENTRY_KEYS
    assert entry["type"] == "stdio"
    # Committed with the project: no path of this machine, variables Claude Code expands.
    assert entry["command"] == "${SARI_COMMAND:-sari}"
    assert entry["args"] == ["serve", "--workspace", "${CLAUDE_PROJECT_DIR:-.}"]
    assert str(project) not in json.dumps(document)
    assert entry["env"] == {}
    assert not (project / ".mcp.json").exists()


def test_claude_code_keeps_other_servers_and_backs_up(project: Path) -> None:
    config = project / ".mcp.json"
    other = {"command": "npx", "args": ["-y", "other-server"], "env": {"TOKEN": "x"}}
    original = {"mcpServers": {"other": other}, "note": "kept"}
    config.write_text(json.dumps(original), encoding="utf-8")
    assert main(["install", "claude-code", "--command", "sari"]) == 0
    written = json.loads(config.read_text(encoding="utf-8"))
    assert written["mcpServers"]["other"] == other
    assert written["note"] == "kept"
    assert written["mcpServers"]["sari"]["command"] == "sari"
    [saved] = backups(config)
    assert json.loads(saved.read_text(encoding="utf-8")) == original
    # A second run changes nothing and makes no second backup.
    assert main(["install", "claude-code", "--command", "sari"]) == 0
    assert len(backups(config)) == 1


def test_invalid_json_is_left_alone(project: Path, capsys) -> None:
    config = project / ".mcp.json"
    config.write_text("{not json", encoding="utf-8")
    assert main(["install", "claude-code"]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert config.read_text(encoding="utf-8") == "{not json"
    assert backups(config) == []


def test_claude_code_hooks_merge_into_settings(project: Path) -> None:
    pytest.importorskip("sari_lspgate")
    pytest.importorskip("sari_persistence")
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]},
                                    "hooks": {"PostToolUse": [mine]}}), encoding="utf-8")
    for _ in range(2):
        assert main(["install", "claude-code", "--hooks", "--command", "sari"]) == 0
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    [pre_tool_use] = data["hooks"]["PreToolUse"]  # once, however often it is installed
    assert pre_tool_use["hooks"][0]["type"] == "mcp_tool"
    post = data["hooks"]["PostToolUse"]
    assert post[0] == mine and len(post) == 2
    assert post[1] == {"matcher": "Edit|Write|MultiEdit", "hooks": [
        {"type": "command", "command": "sari hook claude-code post-tool-use"}]}
    assert data["hooks"]["PreCompact"] == [{"hooks": [
        {"type": "command", "command": "sari hook claude-code pre-compact"}]}]
    assert data["hooks"]["SessionStart"][0]["matcher"] == "compact"
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == \
        "sari hook claude-code session-start"


def test_claude_code_hooks_include_the_operators_local_policies(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A local policy declaring a client hook event gets that event wired, as an installed
    plugin would (``sari hook`` asks the operator's policies too)."""
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "team_rule.py").write_text(
        "from sari_core import ClientHookResult, hookimpl\n\n"
        "client_hook_events = {('claude-code', 'pre-compact')}\n\n\n"
        "@hookimpl\ndef on_client_hook(event):\n"
        "    return ClientHookResult(additional_context='checked')\n", encoding="utf-8")
    monkeypatch.setenv("SARI_PLUGINS_DIR", str(folder))
    monkeypatch.setenv("SARI_PLUGINS", "team_rule")  # whatever else is installed here
    assert main(["install", "claude-code", "--hooks", "--command", "sari"]) == 0
    data = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert data["hooks"]["PreCompact"] == [{"hooks": [
        {"type": "command", "command": "sari hook claude-code pre-compact"}]}]
    assert set(data["hooks"]) == {"PreCompact", "PreToolUse"}


CODEX_BEFORE = """\
# my codex settings
model = "o4-mini"

[mcp_servers.docs]
command = "docs-server"  # keep me
args = ["--port", "1"]

[mcp_servers.sari]
command = "/old/sari"
args = ["serve"]

[mcp_servers.sari.env]
STALE = "1"

[profiles.fast]
model = "gpt-5"
"""


def test_codex_replaces_only_its_table(project: Path) -> None:
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_BEFORE, encoding="utf-8")
    assert main(["install", "codex", "--command", "/opt/sari"]) == 0
    text = config.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert data["mcp_servers"]["sari"] == {
        "command": "/opt/sari", "args": ["serve", "--workspace", str(project.resolve())]}
    assert data["mcp_servers"]["docs"] == {"command": "docs-server", "args": ["--port", "1"]}
    assert data["profiles"] == {"fast": {"model": "gpt-5"}} and data["model"] == "o4-mini"
    assert "# my codex settings" in text and "# keep me" in text
    assert backups(config)[0].read_text(encoding="utf-8") == CODEX_BEFORE


def test_codex_print_is_a_mcp_servers_table(project: Path, capsys) -> None:
    assert main(["install", "codex", "--print", "--command", "sari"]) == 0
    assert tomllib.loads(capsys.readouterr().out) == {"mcp_servers": {"sari": {
        "command": "sari", "args": ["serve", "--workspace", str(project.resolve())]}}}


def test_codex_inline_definition_is_updated_inline(project: Path) -> None:
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('mcp_servers = { sari = { command = "x" } }  # inline\n',
                      encoding="utf-8")
    assert main(["install", "codex", "--command", "/opt/sari"]) == 0
    text = config.read_text(encoding="utf-8")
    assert text.startswith("mcp_servers = {") and text.rstrip().endswith("# inline")
    assert tomllib.loads(text)["mcp_servers"]["sari"]["command"] == "/opt/sari"


CODEX_COMMENTED = """# Codex settings, edited by hand
model = "o4-mini"          # the default model
approval_policy = "on-request"

# --- MCP servers ---
[mcp_servers.docs]   # documentation server
command = "docs-server"
args = [
  "--port",  # keep this first
  "1",
]

[mcp_servers.sari]
command = "old-sari"   # replaced by install

# profiles below
[profiles.fast]
model = "gpt-5"   # fast one
"""


def test_codex_config_with_comments_keeps_every_comment_and_its_layout(project: Path) -> None:
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_COMMENTED, encoding="utf-8")
    assert main(["install", "codex", "--command", "/opt/sari"]) == 0
    text = config.read_text(encoding="utf-8")
    assert tomllib.loads(text)["mcp_servers"]["sari"] == {
        "command": "/opt/sari", "args": ["serve", "--workspace", str(project.resolve())]}
    # every line but the replaced value is still there, blank lines too, in the same order
    kept = [line for line in CODEX_COMMENTED.splitlines() if "old-sari" not in line]
    lines, at = text.splitlines(), 0
    for line in kept:
        assert line in lines[at:], (line, text)
        at = lines.index(line, at) + 1
    assert 'command = "/opt/sari"   # replaced by install' in lines  # its comment too
    assert main(["install", "codex", "--command", "/opt/sari"]) == 0  # again: unchanged
    assert config.read_text(encoding="utf-8") == text


def test_cursor_project_and_user_scopes(project: Path) -> None:
    assert main(["install", "cursor", "--command", "sari"]) == 0
    assert main(["install", "cursor", "--scope", "user", "--command", "sari"]) == 0
    for path in (project / ".cursor" / "mcp.json", Path.home() / ".cursor" / "mcp.json"):
        entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["sari"]
        assert entry == {"command": "sari",
                         "args": ["serve", "--workspace", str(project.resolve())]}


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="Linux config location")
def test_claude_desktop_writes_its_config_folder(project: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    workspace = tmp_path / "elsewhere"
    workspace.mkdir()
    assert main(["install", "claude-desktop", "--workspace", str(workspace),
                 "--command", "sari"]) == 0
    config = tmp_path / "xdg" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]["sari"]
    assert entry["args"] == ["serve", "--workspace", str(workspace.resolve())]


def test_unsupported_scope_explains_the_alternative(project: Path, capsys) -> None:
    assert main(["install", "claude-code", "--scope", "user"]) == 1
    assert "claude mcp add-json --scope user" in capsys.readouterr().err
