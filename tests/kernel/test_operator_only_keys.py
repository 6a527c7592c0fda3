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

from sari_core.kernel.core_settings import CoreSettings
from sari_core.kernel.settings import SettingsSpec, SettingsStore
from sari_core.kernel.trust import operator_only_fields, undeclared_fields

PROGRAM = ["sh", "-c", "touch pwned"]
# (section, key) -> (a value that loosens the guard, the operator's own value or None for
# the default). The operator's value is given where the default is already the loosest.
LOOSER: dict[tuple[str, str], tuple[Any, Any]] = {
    ("core", "fail_closed_plugins"): ([], ["budget"]),
    ("core", "keep_executable_bits"): (True, None),
    ("core", "session_ttl_seconds"): (0.05, None),
    ("core", "max_sessions"): (1, None),
    ("core", "analytics_enabled"): (False, None),
    ("core", "analytics_queue_size"): (1, None),
    ("budget", "min_match_window_lines"): (100000, None),
    ("secretguard", "extra_blocked_globs"): ([], ["*.secret"]),
    ("aggregation", "modes"): (["file"], None),
    ("aggregation", "max_items_per_session"): (1, None),
    ("lspgate", "prewarm"): (True, None),
    ("ripple", "persist"): (False, None),
    ("refgate", "blind_reads"): ("window", None),
    ("refgate", "drift_after"): (0, None),
    ("refgate", "max_bundles_per_session"): (1, None),
    ("refgate", "window_context_lines"): (1000, None),
    ("refgate", "max_windows"): (50, None),
    ("relevance", "top_k"): (1000, None),
    ("relevance", "hard"): (False, True),
    ("relevance", "excluded_paths"): ([], None),
    ("relevance", "checked_modes"): ([], None),
    ("relevance", "alternative_context_lines"): (1000, None),
    ("secretguard", "blocked_globs"): ([], None),
    ("secretguard", "allowed_globs"): (["*"], None),
    ("secretguard", "redact"): (False, None),
    ("secretguard", "extra_patterns"): (["(a+)+$"], None),
    ("refgate", "strict"): (False, True),
    ("refgate", "policy"): ("warn", None),
    ("refgate", "max_range_lines"): (100000, None),
    ("refgate", "gated_modes"): (["diff_preview"], None),
    **{("budget", key): (10**6, None) for key in (
        "max_reads_per_session", "max_total_read_lines", "max_single_read_lines",
        "max_range_read_lines", "max_range_read_chars", "max_preview_chars")},
    ("budget", "soft_limit_ratio"): (1.0, None),
    ("lspgate", "enabled"): (False, None),
    ("lspgate", "ruff"): (False, None),
    ("lspgate", "basedpyright"): (False, None),
    ("lspgate", "python"): ("/bin/sh", None),
    ("lspgate", "workspace_venv"): (True, None),
    ("lspgate", "python_patterns"): ([], None),
    ("lspgate", "language_servers"): ([{"name": "x", "command": PROGRAM,
                                        "patterns": ["*.py"]}], None),
    ("lspgate", "command_validators"): ([{"name": "x", "command": PROGRAM,
                                          "patterns": ["*.py"], "parser": "gnu"}], None),
    ("lspgate", "gate_severities"): (["hint"], None),
    ("lspgate", "failure_mode"): ("open", "closed"),
    ("lspgate", "startup_timeout_seconds"): (0.001, None),
    ("lspgate", "diagnostics_timeout_seconds"): (0.001, None),
    ("lspgate", "command_timeout_seconds"): (0.001, None),
    ("lspgate", "max_restarts"): (0, None),
    ("lspgate", "gate_external_changes"): (False, None),
    ("persistence", "db_path"): ("/tmp/elsewhere.db", None),
    ("persistence", "record_executions"): (False, None),
    ("persistence", "context_query_other_sessions"): (True, None),
    ("persistence", "database_url"): ("postgresql://u:p@elsewhere:5432/log", None),
    ("persistence", "context_query_scope"): ("team", None),
    ("persistence", "pool_size"): (64, None),
    ("persistence", "connect_timeout_seconds"): (0.001, None),
    ("persistence", "machine"): ("someone-else", None),
    ("persistence", "max_payload_chars"): (256, None),
    ("persistence", "response_text_chars"): (0, None),
    ("persistence", "flush_interval_ms"): (1000, None),
    ("persistence", "batch_size"): (1, None),
    ("persistence", "queue_size"): (1, None),
    ("persistence", "context_query_max_results"): (10**6, None),
    ("persistence", "context_query_item_chars"): (10**6, None),
    ("persistence", "session_metrics_backend"): ("sqlite", None),
    ("persistence", "install_sigterm_handler"): (False, None),
    ("persistence", "session_start_fallback_seconds"): (0, None),
}


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


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


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
    (workspace / "sari.toml").write_text(f"[{section}]\n{key} = {_toml(looser)}\n")
    operator = tmp_path / "config.toml"
    if operator_value is not None:
        operator.write_text(f"[{section}]\n{key} = {_toml(operator_value)}\n")
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
