"""What a workspace file may set: operator-only settings, trusted workspaces, broken files.

The workspace is the agent's: it writes ``sari.toml`` and ``pyproject.toml`` like any
other file, so neither may turn a guard off or name a program, and a broken one does not
stop the server.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from sari_core.kernel.settings import SettingsError, SettingsSpec, SettingsStore
from sari_core.kernel.trust import OperatorOnly, Tightens


class GuardSettings(BaseModel):
    command: Annotated[list[str], OperatorOnly("runs a program")] = Field(default_factory=list)
    limit: Annotated[int, OperatorOnly("a higher limit weakens the guard",
                                       workspace_may="lower")] = Field(25, ge=1)
    redact: Annotated[bool, OperatorOnly("turns redaction off",
                                         workspace_may="enable")] = True
    blocked: Annotated[list[str], OperatorOnly("unblocks files",
                                               workspace_may="add")] = Field(
        default_factory=lambda: [".env"])
    policy: Annotated[Literal["warn", "enforce"], OperatorOnly(
        "warn serves what enforce refuses", workspace_may=("warn", "enforce"))] = "enforce"
    label: Annotated[str, Tightens("either", "only a label")] = "plain"
    window: Annotated[int, Tightens("lower", "a wider window serves more")] = 60
    undeclared: int = 5


SPEC = SettingsSpec("guard", GuardSettings)


def _load(workspace: Path, operator: Path, environ: dict[str, str] | None = None,
          ) -> SettingsStore:
    return SettingsStore.load([SPEC], workspace, environ=environ or {}, operator_file=operator)


@pytest.fixture()
def sides(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace, tmp_path / "operator" / "config.toml"


def _operator(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_workspace_command_is_ignored_with_one_warning_naming_the_key(
        sides: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> None:
    workspace, operator = sides
    (workspace / "sari.toml").write_text('[guard]\ncommand = ["sh", "-c", "touch pwned"]\n'
                                         'label = "mine"\n')
    with caplog.at_level(logging.WARNING, logger="sari_core.kernel.settings"):
        store = _load(workspace, operator)
    settings = store.get("guard")
    assert settings.command == []
    assert settings.label == "mine"  # an ordinary setting still comes from the workspace
    assert len(store.notices) == 1 and "guard.command in sari.toml [guard]" in store.notices[0]
    assert [r.getMessage() for r in caplog.records].count(f"settings: {store.notices[0]}") == 1


def test_a_setting_declaring_no_direction_is_the_operators_alone(
        sides: tuple[Path, Path]) -> None:
    """A field that does not say which way is tighter cannot be judged, so a workspace file
    does not set it; the operator still does."""
    workspace, operator = sides
    (workspace / "sari.toml").write_text("[guard]\nundeclared = 1\n")
    store = _load(workspace, operator)
    assert store.get("guard").undeclared == 5
    assert len(store.notices) == 1
    assert "guard.undeclared in sari.toml [guard] ignored" in store.notices[0]
    assert "declares no direction" in store.notices[0]
    assert _load(workspace, operator, {"SARI_GUARD__UNDECLARED": "1"}).get(
        "guard").undeclared == 1


def test_a_declared_direction_keeps_a_tightening_and_ignores_a_loosening(
        sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    (workspace / "sari.toml").write_text("[guard]\nwindow = 10\n")
    assert _load(workspace, operator).get("guard").window == 10
    (workspace / "sari.toml").write_text("[guard]\nwindow = 100000\n")
    store = _load(workspace, operator)
    assert store.get("guard").window == 60
    assert "guard.window in sari.toml [guard] ignored: a wider window serves more" \
        in store.notices[0]


def test_pyproject_table_goes_through_the_same_rule(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    (workspace / "pyproject.toml").write_text(
        '[tool.sari.guard]\ncommand = ["sh"]\nredact = false\n')
    store = _load(workspace, operator)
    assert store.get("guard") == GuardSettings()
    assert len(store.notices) == 2
    assert all("pyproject.toml [tool.sari.guard]" in notice for notice in store.notices)


def test_operator_file_and_environment_are_honoured(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    _operator(operator, '[guard]\ncommand = ["ruff"]\nredact = false\n')
    store = _load(workspace, operator, {"SARI_GUARD__LIMIT": "90"})
    settings = store.get("guard")
    assert (settings.command, settings.redact, settings.limit) == (["ruff"], False, 90)
    assert store.notices == []


def test_a_trusted_workspace_may_set_anything(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    _operator(operator, f'trusted_workspaces = ["{workspace.parent}"]\n')
    (workspace / "sari.toml").write_text('[guard]\ncommand = ["make", "check"]\nlimit = 500\n'
                                         'redact = false\nblocked = []\npolicy = "warn"\n')
    store = _load(workspace, operator)
    assert store.trusted_workspace
    assert store.get("guard") == GuardSettings(command=["make", "check"], limit=500,
                                               redact=False, blocked=[], policy="warn")
    assert store.notices == []


def test_trust_from_the_environment(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    (workspace / "sari.toml").write_text('[guard]\nlimit = 500\n')
    store = _load(workspace, operator, {"SARI_TRUSTED_WORKSPACES": str(workspace)})
    assert store.get("guard").limit == 500


@pytest.mark.parametrize("entry", ["", ".", "..", "ws", "./ws"])
def test_a_relative_trusted_entry_is_refused_naming_it(
        sides: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    """A relative entry would trust whatever folder the server starts in."""
    workspace, operator = sides
    monkeypatch.chdir(workspace)
    (workspace / "sari.toml").write_text('[guard]\nlimit = 500\n')
    _operator(operator, f'trusted_workspaces = ["{entry}"]\n')
    with pytest.raises(SettingsError, match=rf"trusted_workspaces entry '{re.escape(entry)}' "
                                            r"\(from .*config.toml\) is not an absolute path"):
        _load(workspace, operator)
    if entry:
        operator.unlink()
        with pytest.raises(SettingsError, match="SARI_TRUSTED_WORKSPACES"):
            _load(workspace, operator, {"SARI_TRUSTED_WORKSPACES": entry})


def test_trust_is_not_read_from_the_workspace(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    (workspace / "sari.toml").write_text(
        f'trusted_workspaces = ["{workspace}"]\n[guard]\nlimit = 500\n')
    (workspace / "pyproject.toml").write_text(
        f'[tool.sari]\ntrusted_workspaces = ["{workspace}"]\n')
    store = _load(workspace, operator)
    assert not store.trusted_workspace
    assert store.get("guard").limit == 25


@pytest.mark.parametrize(("toml", "honoured"), [
    ("limit = 10", {"limit": 10}),
    ("limit = 26", {}),
    ("limit = true", {}),
    ('limit = "1"', {}),
    ("redact = true", {"redact": True}),
    ("redact = false", {}),
    ('blocked = [".env", "*.pem"]', {"blocked": [".env", "*.pem"]}),
    ('blocked = ["*.pem"]', {}),
    ('policy = "enforce"', {"policy": "enforce"}),
    ('policy = "warn"', {}),
])
def test_a_workspace_may_only_tighten(sides: tuple[Path, Path], toml: str,
                                      honoured: dict[str, object]) -> None:
    workspace, operator = sides
    (workspace / "sari.toml").write_text(f"[guard]\n{toml}\n")
    store = _load(workspace, operator)
    assert store.get("guard") == GuardSettings(**honoured)  # type: ignore[arg-type]
    assert len(store.notices) == (0 if honoured else 1)


def test_tightening_is_measured_against_the_operator_value(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    _operator(operator, '[guard]\nlimit = 100\npolicy = "warn"\n')
    (workspace / "sari.toml").write_text('[guard]\nlimit = 60\npolicy = "warn"\n')
    assert _load(workspace, operator).get("guard").limit == 60
    (workspace / "sari.toml").write_text('[guard]\nlimit = 101\n')
    assert _load(workspace, operator).get("guard").limit == 100


@pytest.mark.parametrize("text", ["[guard\n", "\x00\xff", "guard = 3\n",
                                  "[guard]\nlimit = 0\n", "[guard]\nlimitt = 3\n"])
@pytest.mark.parametrize("name", ["sari.toml", "pyproject.toml"])
def test_a_broken_workspace_file_is_reported_not_fatal(
        sides: tuple[Path, Path], name: str, text: str) -> None:
    workspace, operator = sides
    _operator(operator, "[guard]\nlimit = 7\n")
    if name == "pyproject.toml" and text.startswith(("guard", "[guard]")):
        text = text.replace("[guard]", "[tool.sari.guard]").replace("guard = 3",
                                                                    "[tool]\nsari = 3")
    (workspace / name).write_bytes(text.encode("latin-1"))
    store = _load(workspace, operator)
    assert store.get("guard") == GuardSettings(limit=7)  # the operator's settings
    assert len(store.notices) == 1 and name in store.notices[0]
    assert str(workspace) not in store.notices[0]


def test_a_broken_operator_value_still_stops(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    _operator(operator, "[guard]\nlimit = 0\n")
    with pytest.raises(SettingsError, match=r"guard\.limit .*config\.toml"):
        _load(workspace, operator)


def test_an_operator_file_inside_the_workspace_is_not_the_operator(
        sides: tuple[Path, Path]) -> None:
    workspace, _ = sides
    planted = workspace / ".config" / "sari" / "config.toml"
    _operator(planted, f'trusted_workspaces = ["{workspace}"]\n[guard]\ncommand = ["sh"]\n')
    store = _load(workspace, planted)
    assert store.get("guard").command == []
    assert any("inside the workspace" in notice for notice in store.notices)


def test_workspace_files_are_read_once_at_load(sides: tuple[Path, Path]) -> None:
    workspace, operator = sides
    (workspace / "sari.toml").write_text("[guard]\nlabel = \"before\"\n")
    store = _load(workspace, operator)
    (workspace / "sari.toml").write_text("[guard]\nlabel = \"after\"\n")
    assert store.get("guard").label == "before"
