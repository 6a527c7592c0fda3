"""``sari hook claude-code post-tool-use`` and ``sari gate check``, run as subprocesses with the
plugin installed (``SARI_PLUGINS=lspgate``), on Claude Code hook inputs from fixtures/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
APP = "def value() -> int:\n    return 1\n"
LEGACY = ("def label(count: int) -> str:\n    return count\n\n\n"
          "def shout(text: str) -> str:\n    return text.upper()\n")


def sari(args: list[str], cwd: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "SARI_PLUGINS": "lspgate", **env}
    return subprocess.run([sys.executable, "-m", "sari_core.cli.main", *args], cwd=cwd,
                          input=stdin, capture_output=True, text=True, env=environment,
                          timeout=180)


def hook(fixture: str, workspace: Path, **env: str) -> dict[str, Any]:
    """Run the PostToolUse hook on a fixture; the JSON it printed ({} when silent)."""
    payload = (FIXTURES / fixture).read_text().replace("__CWD__", str(workspace))
    result = sari(["hook", "claude-code", "post-tool-use"], workspace, payload, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text(APP)
    (root / "other.py").write_text("NAME = 'x'\n")
    (root / "legacy.py").write_text(LEGACY)
    return root


def test_the_hook_blocks_on_a_syntax_error_and_passes_once_it_is_fixed(workspace: Path) -> None:
    ruff_only = {"SARI_LSPGATE__BASEDPYRIGHT": "false"}
    # Claude Code's Edit wrote the file, then ran the hook.
    (workspace / "app.py").write_text(APP.replace("return 1", "return (1"))
    blocked = hook("edit_introduces_syntax_error.json", workspace, **ruff_only)
    assert blocked["decision"] == "block"
    assert "LSP_GATE_BLOCKED" in blocked["reason"]
    assert "app.py:" in blocked["reason"]

    # Another file edited while the gate is closed: blocked again, pointing back.
    (workspace / "other.py").write_text("NAME = 'y'\n")
    again = hook("write_other_file_while_gated.json", workspace, **ruff_only)
    assert again["decision"] == "block"
    assert "other.py was changed while the gate was closed" in again["reason"]

    # The fix (a MultiEdit without originalFile: the old text is rebuilt) lifts the gate.
    (workspace / "app.py").write_text("def value_of() -> int:\n    return 1\n")
    lifted = hook("multiedit_fixes_syntax_error.json", workspace, **ruff_only)
    assert "decision" not in lifted
    context = lifted["hookSpecificOutput"]["additionalContext"]
    assert lifted["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "LSP_GATE_LIFTED" in context


def test_the_hook_passes_an_edit_that_keeps_an_old_type_error_and_blocks_a_new_one(
        workspace: Path) -> None:
    (workspace / "legacy.py").write_text(LEGACY.replace("text.upper()", "text.lower()"))
    assert hook("edit_keeps_old_type_error.json", workspace) == {}

    (workspace / "legacy.py").write_text(LEGACY.replace("return text.upper()",
                                                        "return len(text)"))
    blocked = hook("edit_introduces_type_error.json", workspace)
    assert blocked["decision"] == "block"
    assert "legacy.py:6 - " in blocked["reason"]
    assert "legacy.py:2 - " not in blocked["reason"]  # the old error does not count


def test_the_hook_ignores_other_tools(workspace: Path) -> None:
    assert hook("read_tool.json", workspace) == {}


def test_gate_check_reports_errors_with_exit_status_1(workspace: Path) -> None:
    (workspace / "broken.py").write_text("def f(:\n    pass\n")
    result = sari(["gate", "check", "--json", "broken.py", "legacy.py", "app.py"], workspace)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is False
    paths = {d["path"] for d in report["diagnostics"]}
    assert paths == {"broken.py", "legacy.py"}
    assert {d["source"] for d in report["diagnostics"]} == {"ruff", "basedpyright"}
    assert {v["name"] for v in report["validators"]} == {"ruff", "basedpyright"}

    clean = sari(["gate", "check", "app.py"], workspace, SARI_LSPGATE__BASEDPYRIGHT="false")
    assert clean.returncode == 0, clean.stderr
    assert "no errors in 1 file(s)" in clean.stdout


def test_gate_check_fail_closed_exits_3_when_a_validator_is_missing(workspace: Path) -> None:
    # The operator's own file: a workspace file may not name a language server.
    operator = workspace.parent / "operator.toml"
    operator.write_text(
        '[lspgate]\nruff = false\nbasedpyright = false\nfailure_mode = "closed"\n'
        '[[lspgate.language_servers]]\nname = "ghost"\n'
        'command = ["sari-no-such-language-server"]\npatterns = ["*.py"]\n')
    result = sari(["gate", "check", "app.py"], workspace, SARI_CONFIG_FILE=str(operator))
    assert result.returncode == 3
    assert "LSP_UNAVAILABLE" in result.stderr and "not found" in result.stderr
