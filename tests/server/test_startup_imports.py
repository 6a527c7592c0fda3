"""``sari serve`` loads its own command, not every other one (an MCP client waits for
``initialize`` while the server imports)."""

from __future__ import annotations

import subprocess
import sys


def loaded_after(code: str, modules: list[str]) -> dict[str, bool]:
    probe = f"{code}\nimport sys\nprint(*[m in sys.modules for m in {modules!r}])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split()
    return dict(zip(modules, (flag == "True" for flag in out), strict=True))


def test_serve_imports_only_its_own_command_module() -> None:
    loaded = loaded_after("from sari_core.cli.main import build_registry\n"
                          "names = [c.name for c in build_registry('serve').commands()]\n"
                          "assert names == ['serve'], names",
                          ["sari_core.cli.commands.replay", "sari_core.cli.commands.install",
                           "sari_core.cli.commands.serve"])
    assert loaded == {"sari_core.cli.commands.replay": False,
                      "sari_core.cli.commands.install": False,
                      "sari_core.cli.commands.serve": True}
