"""Entry-point loading with the allow/deny env lists, and loud failures for misspelt hooks.

Plugins here are real distributions on sys.path (a ``.dist-info`` with
``entry_points.txt``), found by importlib.metadata exactly as installed ones are.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pluggy
import pytest

from sari_core import Kernel
from sari_core.kernel.manager import SariPluginManager
from sari_core.testing import MemoryEngine

PLUGIN_SOURCE = textwrap.dedent('''
    from sari_core import hookimpl, Verdict

    class Policy:
        @hookimpl
        def on_read_enter(self, call, session):
            return Verdict.warn("PREVIEW_DEGRADED", message="{name} saw " + call.target)
''')

MISSPELT_SOURCE = textwrap.dedent('''
    from sari_core import hookimpl

    @hookimpl
    def on_read_entre(call, session):
        return None
''')


def make_distribution(root: Path, name: str, source: str) -> None:
    module = f"sari_test_{name}"
    (root / f"{module}.py").write_text(source.replace("{name}", name))
    info = root / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    target = f"{module}:Policy" if "class Policy" in source else module
    (info / "entry_points.txt").write_text(f"[sari]\n{name} = {target}\n")


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("alpha", "beta", "gamma"):
        make_distribution(tmp_path, name, PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def loaded_names() -> list[str]:
    pm = SariPluginManager()
    pm.load_entry_points()
    return [n for n in pm.plugin_names() if n in {"alpha", "beta", "gamma"}]


def test_all_installed_plugins_load_by_default(installed: Path) -> None:
    assert loaded_names() == ["alpha", "beta", "gamma"]


def test_allow_list(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "beta")
    assert loaded_names() == ["beta"]
    monkeypatch.setenv("SARI_PLUGINS", "none")
    assert loaded_names() == []


def test_no_plugin_allowed_reads_no_metadata_for_a_kernel(
        installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``SARI_PLUGINS=none``: opening a kernel loads nothing, so it reads no distribution's
    metadata; ``sari plugins`` still lists what is installed (disabled)."""
    monkeypatch.setenv("SARI_PLUGINS", "none")
    listed = {info.name: info for info in SariPluginManager().load_entry_points()}
    assert {"alpha", "beta", "gamma"} <= set(listed) and not listed["alpha"].enabled

    def no_metadata(*_args: object) -> list[object]:
        raise AssertionError("read the installed distributions' entry points")

    monkeypatch.setattr("sari_core.kernel.manager.installed_entry_points", no_metadata)
    kernel = Kernel(MemoryEngine({"a.py": "x\n"}), analytics_sinks=[])
    assert [n for n in kernel.pm.plugin_names() if n in {"alpha", "beta", "gamma"}] == []
    kernel.close()


def test_deny_list_blocks(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_DISABLE_PLUGINS", "alpha,gamma")
    pm = SariPluginManager()
    infos = {info.name: info for info in pm.load_entry_points()}
    assert [n for n in pm.plugin_names() if n in {"alpha", "beta", "gamma"}] == ["beta"]
    assert pm.is_blocked("alpha") and not infos["alpha"].enabled
    assert infos["alpha"].hooks == ()  # listed by `sari plugins`, but never loaded
    pm.register(object(), name="alpha")  # blocked names stay out even when registered by hand
    assert pm.get_plugin("alpha") is None


def test_loaded_plugins_run_in_the_kernel(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "alpha,gamma")
    kernel = Kernel(MemoryEngine({"a.py": "x\n"}), analytics_sinks=[])
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    stab = response["meta"]["stabilization"]
    assert stab["warnings"] == ["alpha saw a.py", "gamma saw a.py"]  # by plugin name
    assert stab["reason_codes"] == ["PREVIEW_DEGRADED"]  # de-duplicated
    kernel.close()


def test_misspelt_hook_is_refused_at_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_distribution(tmp_path, "typo", MISSPELT_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(pluggy.PluginValidationError, match="on_read_entre"):
        SariPluginManager().load_entry_points()
    monkeypatch.setenv("SARI_DISABLE_PLUGINS", "typo")
    SariPluginManager().load_entry_points()  # disabling the broken plugin gets you going


def test_wrong_hook_signature_is_refused(tmp_path: Path) -> None:
    from sari_core import hookimpl

    class Bad:
        @hookimpl
        def on_read_enter(self, call, session, extra):
            return None

    with pytest.raises(pluggy.PluginValidationError):
        SariPluginManager().register(Bad())
