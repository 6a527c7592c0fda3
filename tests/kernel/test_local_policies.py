"""Local policies: plain modules in the operator's folder, loaded like plugins, protected
from Sari's own writes, and reported with path and line when they do not import."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from sari_core import Kernel
from sari_core.cli.main import main
from sari_core.testing import MemoryEngine

VENDOR_CAP = '''\
from sari_core import ReadCall, ReasonCodeSpec, Verdict, hookimpl


@hookimpl
def sari_register_reason_codes():
    return [ReasonCodeSpec("NOVENDOR_READ", "Reads under vendor/ are refused.")]


@hookimpl
def on_read_enter(call: ReadCall):
    if call.target.startswith("vendor/"):
        return Verdict.block("NOVENDOR_READ", message="vendor/ is not read here.")
    return None
'''

BROKEN = '''\
import os

VALUE = 1
raise RuntimeError("this policy is broken")
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "vendor_cap.py").write_text(VENDOR_CAP)
    monkeypatch.setenv("SARI_PLUGINS_DIR", str(policies))
    return policies


def kernel(files: dict[str, str]) -> Kernel:
    return Kernel(MemoryEngine(files), analytics_sinks=[])  # installed plugins and local ones


def test_a_policy_module_in_the_folder_is_loaded_like_a_plugin(folder: Path) -> None:
    with kernel({"vendor/x.py": "x = 1\n", "app.py": "y = 2\n"}) as k:
        refused = k.execute_read({"mode": "file", "target": "vendor/x.py"})
        served = k.execute_read({"mode": "file", "target": "app.py"})
    assert refused["ok"] is False and refused["error"]["code"] == "NOVENDOR_READ"
    assert served["ok"] is True


def test_the_deny_list_applies_to_local_policies(folder: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_DISABLE_PLUGINS", "vendor_cap")
    with kernel({"vendor/x.py": "x = 1\n"}) as k:
        assert k.execute_read({"mode": "file", "target": "vendor/x.py"})["ok"] is True


def test_a_broken_module_is_reported_with_path_and_line_and_the_kernel_starts(
        folder: Path, caplog: pytest.LogCaptureFixture) -> None:
    (folder / "broken.py").write_text(BROKEN)
    (folder / "typo.py").write_text("def f(:\n    pass\n")
    with kernel({"vendor/x.py": "x = 1\n"}) as k:
        assert k.execute_read({"mode": "file", "target": "vendor/x.py"})["ok"] is False
    logged = caplog.text
    assert f"{folder / 'broken.py'}:4: RuntimeError: this policy is broken" in logged
    assert f"{folder / 'typo.py'}:1: SyntaxError" in logged


def test_sari_plugins_lists_local_policies_and_their_failures(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "broken.py").write_text(BROKEN)
    (folder / "_helper.py").write_text("SHARED = 1\n")  # not a policy: underscore
    assert main(["plugins", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["vendor_cap"]["enabled"] is True
    assert rows["vendor_cap"]["hooks"] == ["on_read_enter", "sari_register_reason_codes"]
    assert rows["vendor_cap"]["distribution"] == f"local policy {folder / 'vendor_cap.py'}"
    assert rows["broken"]["enabled"] is False
    assert rows["broken"]["error"].startswith(f"{folder / 'broken.py'}:4: RuntimeError")
    assert "_helper" not in rows


def test_the_plugins_dir_flag_names_the_folder(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The flag sets SARI_PLUGINS_DIR for this process: recorded here so the test's end takes
    # it away again (delenv of an unset name records nothing to undo).
    monkeypatch.setenv("SARI_PLUGINS_DIR", "")
    policies = tmp_path / "flag-policies"
    policies.mkdir()
    (policies / "vendor_cap.py").write_text(VENDOR_CAP)
    assert main(["--plugins-dir", str(policies), "plugins", "--json"]) == 0
    names = [row["name"] for row in json.loads(capsys.readouterr().out)]
    assert "vendor_cap" in names


def test_sari_does_not_write_or_edit_the_policy_folder(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    policies = workspace / ".policies"
    policies.mkdir(parents=True)
    (policies / "vendor_cap.py").write_text(VENDOR_CAP)
    (workspace / "app.py").write_text("y = 2\n")
    monkeypatch.setenv("SARI_PLUGINS_DIR", str(policies))
    with Kernel(roots=[workspace], analytics_sinks=[]) as k:
        edit = k.execute_mutation("edit", {"path": ".policies/vendor_cap.py",
                                           "old_string": "Reads under vendor/",
                                           "new_string": "Reads of nothing"})
        write = k.execute_mutation("write", {"path": ".policies/allow_all.py",
                                             "content": "x = 1\n"})
        elsewhere = k.execute_mutation("write", {"path": "notes.md", "content": "ok\n"})
    assert edit["ok"] is False and edit["error"]["code"] == "PROTECTED_PATH"
    assert write["ok"] is False and write["error"]["code"] == "PROTECTED_PATH"
    assert (policies / "vendor_cap.py").read_text() == VENDOR_CAP
    assert not (policies / "allow_all.py").exists()
    assert elsewhere["ok"] is True


def test_a_workspace_setting_cannot_name_the_folder(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SARI_PLUGINS_DIR", raising=False)
    workspace = tmp_path / "ws"
    (workspace / "policies").mkdir(parents=True)
    (workspace / "policies" / "vendor_cap.py").write_text(VENDOR_CAP)
    (workspace / "vendor").mkdir()
    (workspace / "vendor" / "x.py").write_text("x = 1\n")
    (workspace / "sari.toml").write_text(textwrap.dedent('''\
        [core]
        plugins_dir = "policies"
        '''))
    try:
        with Kernel(roots=[workspace], analytics_sinks=[]) as k:
            response = k.execute_read({"mode": "file", "target": "vendor/x.py"})
    except Exception as exc:  # noqa: BLE001 - an unknown setting is refused at start: fine too
        assert "plugins_dir" in str(exc)
    else:
        assert response["ok"] is True  # the module was never loaded


def test_the_users_config_file_can_name_the_folder(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SARI_PLUGINS_DIR", raising=False)
    home = tmp_path / "home-config"
    (home / "policies").mkdir(parents=True)
    (home / "policies" / "vendor_cap.py").write_text(VENDOR_CAP)
    (home / "config.toml").write_text('plugins_dir = "policies"\n')
    monkeypatch.setenv("SARI_CONFIG_FILE", str(home / "config.toml"))
    with kernel({"vendor/x.py": "x = 1\n"}) as k:
        assert k.execute_read({"mode": "file", "target": "vendor/x.py"})["ok"] is False


def test_a_config_file_inside_the_workspace_names_no_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SARI_PLUGINS_DIR", raising=False)
    workspace = tmp_path / "ws"
    (workspace / "policies").mkdir(parents=True)
    (workspace / "policies" / "vendor_cap.py").write_text(VENDOR_CAP)
    (workspace / "config.toml").write_text('plugins_dir = "policies"\n')
    (workspace / "vendor").mkdir()
    (workspace / "vendor" / "x.py").write_text("x = 1\n")
    monkeypatch.setenv("SARI_CONFIG_FILE", str(workspace / "config.toml"))
    with Kernel(roots=[workspace], analytics_sinks=[]) as k:
        assert k.execute_read({"mode": "file", "target": "vendor/x.py"})["ok"] is True
