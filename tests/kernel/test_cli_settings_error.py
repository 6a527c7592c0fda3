"""An invalid setting is one clean line from every command, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.cli.main import main


@pytest.mark.parametrize("argv", [
    ["read", "app.py"],
    ["search", "hello"],
])
def test_an_invalid_setting_is_one_line_naming_it(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "app.py").write_text("print('hello')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SARI_CORE__MAX_SESSIONS", "many")
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"sari {argv[0]}: invalid setting core.max_sessions")
    assert "Traceback" not in err[0]
