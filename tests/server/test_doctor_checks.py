"""``sari doctor``'s index readiness and its language-server advice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sari_core.cli.commands import doctor
from sari_core.cli.main import main


def test_a_complete_index_is_reported_ready(tmp_path: Path, capsys,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "none")
    (tmp_path / "a.py").write_text("def alpha():\n    return 1\n", encoding="utf-8")
    assert main(["index", str(tmp_path)]) == 0
    capsys.readouterr()
    check = doctor.check_index([tmp_path])
    assert check.status == "ok" and "ready=True" in check.detail, check.detail
    assert "files=1" in check.detail
    main(["doctor", "--json", "--workspace", str(tmp_path)])
    checks = {item["name"]: item for item in json.loads(capsys.readouterr().out)}
    assert "ready=True" in checks["index"]["detail"]


def test_no_language_server_advice_without_the_plugin_that_uses_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    installed = {"sari-lspgate": "not installed"}
    monkeypatch.setattr(doctor, "_version", lambda name: installed.get(name, "1.0"))
    monkeypatch.setattr(doctor, "find_executable", lambda name: None)
    checks = doctor.check_language_servers()
    assert [(c.name, c.status) for c in checks] == [("language servers", "ok")]
    assert "pip install ruff" not in checks[0].detail
    assert "pip install sari-lspgate" in checks[0].detail
    installed["sari-lspgate"] = "0.1.0"
    advice = {c.name: c.detail for c in doctor.check_language_servers()}
    assert "pip install ruff" in advice["ruff"]
    assert "pip install basedpyright" in advice["basedpyright-langserver"]
