"""Plugin settings from pyproject.toml, sari.toml and the environment; clear errors.

What the workspace may not set, and what a broken workspace file does: test_settings_trust."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from sari_core.kernel.settings import SettingsError, SettingsSpec, SettingsStore
from sari_core.kernel.trust import Tightens

# Layering is what is tested here: every field may come from the workspace either way.
_ANY = Tightens("either", "a demo")


class DemoSettings(BaseModel):
    max_reads: Annotated[int, _ANY] = Field(25, ge=1)
    mode: Annotated[str, _ANY] = "soft"
    excluded: Annotated[list[str], _ANY] = Field(default_factory=lambda: ["vendor/"])


SPEC = SettingsSpec("demo", DemoSettings)


def test_defaults_without_any_file(tmp_path: Path) -> None:
    settings = SettingsStore.load([SPEC], tmp_path, environ={}).get("demo")
    assert settings == DemoSettings()


def test_layers_pyproject_then_sari_toml_then_env(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.sari.demo]\nmax_reads = 10\nmode = "hard"\n')
    (tmp_path / "sari.toml").write_text('[demo]\nmax_reads = 12\n')
    store = SettingsStore.load([SPEC], tmp_path, environ={"SARI_DEMO__EXCLUDED": '["x/"]'})
    assert store.get("demo") == DemoSettings(max_reads=12, mode="hard", excluded=["x/"])
    store = SettingsStore.load([SPEC], tmp_path, environ={"SARI_DEMO__MAX_READS": "40"})
    assert store.get("demo").max_reads == 40


def test_invalid_operator_value_names_the_key_and_source(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"demo\.max_reads .*environment"):
        SettingsStore.load([SPEC], tmp_path, environ={"SARI_DEMO__MAX_READS": "0"})


def test_unknown_key_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"unknown setting demo\.max_raeds .*environment"):
        SettingsStore.load([SPEC], tmp_path, environ={"SARI_DEMO__MAX_RAEDS": "3"})


def test_broken_operator_file_is_an_error(tmp_path: Path) -> None:
    operator = tmp_path / "operator.toml"
    operator.write_text("[demo\n")
    with pytest.raises(SettingsError, match="operator.toml"):
        SettingsStore.load([SPEC], None, environ={}, operator_file=operator)
