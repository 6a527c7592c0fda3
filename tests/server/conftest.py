"""Fixtures for the MCP server tests: a kernel over the in-memory engine, served in-process;
and, for the subprocess tests, a git workspace and the server's environment."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from e2e_harness import make_git_workspace, server_env
from raising_plugin import RaisingPlugin
from server_fixture_files import FILES

from sari_core.kernel import Kernel
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine


@pytest.fixture
def plugin() -> RaisingPlugin:
    return RaisingPlugin()


@pytest.fixture
def make_server(plugin: RaisingPlugin) -> Callable[..., SariServer]:
    """Build a SariServer over a fresh in-memory workspace (closed after the test)."""
    kernels: list[Kernel] = []

    def build(engine: MemoryEngine | None = None, **options: object) -> SariServer:
        kernel = Kernel(engine or MemoryEngine(dict(FILES)), plugins=[plugin],
                        load_entry_points=False, analytics_sinks=[])
        kernels.append(kernel)
        return SariServer(kernel, **options)  # type: ignore[arg-type]

    yield build
    for kernel in kernels:
        kernel.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_git_workspace(tmp_path / "ws")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return server_env(tmp_path)
