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


def test_a_stdio_server_answers_initialize_without_the_kernel_pipeline_or_http() -> None:
    """What ``sari serve`` imports before it answers ``initialize`` over stdio: the kernel's
    pipeline and plugin manager load on the kernel's thread afterwards, and the HTTP stack
    only for an HTTP server."""
    loaded = loaded_after("import mcp.server.lowlevel\n"
                          "from sari_core.server.app import SariServer\n"
                          "from sari_core.server.kernel_loading import KernelLoading\n"
                          "from sari_core.server.transports import serve_stdio",
                          ["sari_core.kernel.pipeline", "sari_core.kernel.manager",
                           "sari_core.server.http_read_timeout", "sari_core.server.http_guard",
                           "sari_core.server.app"])
    assert loaded == {"sari_core.kernel.pipeline": False, "sari_core.kernel.manager": False,
                      "sari_core.server.http_read_timeout": False,
                      "sari_core.server.http_guard": False, "sari_core.server.app": True}
