"""``sari doctor``: a report of every check, failing on a broken setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sari_core.cli.main import main


def report(capsys: pytest.CaptureFixture[str], workspace: Path) -> tuple[int, dict[str, dict]]:
    status = main(["doctor", "--json", "--workspace", str(workspace)])
    checks = json.loads(capsys.readouterr().out)
    return status, {check["name"]: check for check in checks}


def test_reports_every_area(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "none")
    status, checks = report(capsys, tmp_path)
    assert checks["python"]["status"] == "ok"
    for name in ("git", "state folder", "cache folder", "log folder", "index", "settings"):
        assert name in checks, name
    assert "ruff" in checks or "language servers" in checks  # the latter without sari-lspgate
    assert checks["git repository"]["status"] == "warn"  # tmp_path is not a repository
    assert checks["settings"]["status"] == "ok"
    assert status == (1 if any(c["status"] == "error" for c in checks.values()) else 0)


def test_invalid_operator_setting_is_an_error(tmp_path: Path, capsys,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "none")
    monkeypatch.setenv("SARI_CORE__MAX_SESSIONS", "0")
    status, checks = report(capsys, tmp_path)
    assert status == 1
    assert checks["settings"]["status"] == "error"
    assert "core.max_sessions" in checks["settings"]["detail"]


def test_invalid_workspace_config_is_reported_not_fatal(tmp_path: Path, capsys,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "none")
    (tmp_path / "sari.toml").write_text("[core]\nmax_sessions = 0\n", encoding="utf-8")
    status, checks = report(capsys, tmp_path)
    assert checks["settings"]["status"] == "ok"
    assert checks["workspace config"]["status"] == "warn"
    assert "core.max_sessions" in checks["workspace config"]["detail"]
    assert status == (1 if any(c["status"] == "error" for c in checks.values()) else 0)


def test_missing_workspace_is_an_error(tmp_path: Path, capsys) -> None:
    status, checks = report(capsys, tmp_path / "nope")
    assert status == 1 and checks["workspace"]["status"] == "error"


def test_reports_the_start_up_breakdown(tmp_path: Path, capsys,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "none")
    _, checks = report(capsys, tmp_path)
    startup = checks["start-up"]
    assert startup["status"] in ("ok", "warn"), startup
    detail = startup["detail"]
    assert detail.startswith("initialize answered in ")
    for phase in ("mcp SDK import", "plugins and engine (after initialize)",
                  "interpreter, CLI and handshake"):
        assert phase in detail, detail
