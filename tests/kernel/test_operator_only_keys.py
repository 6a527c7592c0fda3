"""Every setting of the kernel and of every installed plugin, from both sides.

Every field declares which way it is tighter; one that declares nothing fails the walk.
From a workspace file (which the agent can write) a looser value is ignored, with a
notice naming the key; from the operator's side (the environment) and from a workspace
the operator trusts, it is honoured. A field without a looser value here (other than one
no value of which loosens anything) fails the completeness test, so none goes untested.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from looser_settings import LOOSER, toml_value

from sari_core.kernel.core_settings import CoreSettings
from sari_core.kernel.settings import SettingsSpec, SettingsStore
from sari_core.kernel.trust import operator_only_fields, undeclared_fields


def _installed_specs() -> dict[str, SettingsSpec]:
    specs = {"core": SettingsSpec("core", CoreSettings)}
    for ep in entry_points(group="sari"):
        plugin = ep.load()
        plugin = plugin() if isinstance(plugin, type) else plugin
        register = getattr(plugin, "sari_register_settings", None)
        spec = register() if register else None
        if spec is not None:
            specs[spec.section] = spec
    return specs


SPECS = _installed_specs()
MARKED = sorted((section, key) for section, spec in SPECS.items()
                for key, marker in operator_only_fields(spec.model).items()
                if marker.workspace_may != "either")


def _dumped(store: SettingsStore, section: str, key: str) -> Any:
    return store.get(section).model_dump(mode="json")[key]


def _expected(section: str, key: str, value: Any) -> Any:
    return SPECS[section].model.model_validate({key: value}).model_dump(mode="json")[key]


def test_every_setting_declares_which_way_is_tighter() -> None:
    assert {section: undeclared_fields(spec.model) for section, spec in SPECS.items()
            if undeclared_fields(spec.model)} == {}


def test_every_operator_only_key_has_a_looser_value_here() -> None:
    assert [marked for marked in MARKED if marked not in LOOSER] == []


@pytest.mark.parametrize(("section", "key"), MARKED)
def test_from_both_sides(tmp_path: Path, section: str, key: str) -> None:
    looser, operator_value = LOOSER[(section, key)]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "sari.toml").write_text(f"[{section}]\n{key} = {toml_value(looser)}\n")
    operator = tmp_path / "config.toml"
    if operator_value is not None:
        operator.write_text(f"[{section}]\n{key} = {toml_value(operator_value)}\n")
    specs = list(SPECS.values())

    ignored = SettingsStore.load(specs, workspace, environ={}, operator_file=operator)
    baseline = (_expected(section, key, operator_value) if operator_value is not None
                else _dumped(SettingsStore.load(specs, None, environ={}), section, key))
    assert _dumped(ignored, section, key) == baseline
    assert [n for n in ignored.notices if f"{section}.{key} " in n] != []
    assert len(ignored.notices) == 1

    variable = f"SARI_{section.upper()}__{key.upper()}"
    honoured = SettingsStore.load(specs, None, environ={variable: json.dumps(looser)},
                                  operator_file=operator)
    assert _dumped(honoured, section, key) == _expected(section, key, looser)

    trusted = SettingsStore.load(specs, workspace, operator_file=operator,
                                 environ={"SARI_TRUSTED_WORKSPACES": str(workspace)})
    assert _dumped(trusted, section, key) == _expected(section, key, looser)
    assert trusted.notices == []
