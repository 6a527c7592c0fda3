"""Every core ``sari`` command starts with its own module only: no other command's module, no
plugin loaded to list plugin commands it does not run (``sari hook`` runs on each of a
client's tool calls; ``--version`` needs nothing at all)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sari_core.cli.main import build_registry, core_command_module
from sari_core.kernel.manager import SariPluginManager


def loaded_after(code: str, modules: list[str]) -> dict[str, bool]:
    probe = f"{code}\nimport sys\nprint(*[m in sys.modules for m in {modules!r}])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split()
    return dict(zip(modules, (flag == "True" for flag in out), strict=True))


@pytest.fixture
def plugin_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time the registry loads the installed plugins (to list their commands)."""
    loads: list[str] = []
    monkeypatch.setattr(SariPluginManager, "load_entry_points",
                        lambda self, *args, **kwargs: loads.append("loaded"))
    return loads


@pytest.mark.parametrize(("command", "module"), [("hook", "hook"), ("doctor", "doctor"),
                                                 ("new-plugin", "new_plugin")])
def test_a_core_command_imports_its_module_and_loads_no_plugin(
        command: str, module: str, plugin_loads: list[str]) -> None:
    assert [c.name for c in build_registry(command).commands()] == [command]
    assert plugin_loads == []
    loaded = loaded_after(f"from sari_core.cli.main import build_registry\n"
                          f"build_registry({command!r})",
                          [f"sari_core.cli.commands.{module}", "sari_core.cli.commands.replay",
                           "sari_core.cli.commands.install"])
    assert loaded == {f"sari_core.cli.commands.{module}": True,
                      "sari_core.cli.commands.replay": False,
                      "sari_core.cli.commands.install": False}


def test_version_loads_no_command_and_still_prints_the_version(
        plugin_loads: list[str]) -> None:
    assert build_registry("--version").commands() == []
    assert plugin_loads == []
    out = subprocess.run([sys.executable, "-m", "sari_core.cli.main", "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("sari ")


def test_a_name_that_is_no_core_command_builds_the_whole_registry(
        plugin_loads: list[str]) -> None:
    assert core_command_module("search") == "sari_core.cli.commands.search"
    assert core_command_module("new-plugin") == "sari_core.cli.commands.new_plugin"
    for name in ("gate", "bogus", "_private", "../search", "commands", "new plugin"):
        assert core_command_module(name) is None, name
    names = [c.name for c in build_registry("gate").commands()]
    assert {"search", "hook", "doctor", "new-plugin"} <= set(names)
    assert plugin_loads == ["loaded"]
