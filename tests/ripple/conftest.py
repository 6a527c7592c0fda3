"""sari-ripple tests: skipped when the plugin is not installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_ripple")

from ripple_workspace import build_engine  # noqa: E402

from sari_core import Kernel  # noqa: E402

KernelFactory = Callable[..., Kernel]


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets its own state folder, so saved tier states never leak between tests."""
    folder = tmp_path / "state"
    monkeypatch.setenv("SARI_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def make_kernel(workspace_root: Path, state_folder: Path) -> Iterator[KernelFactory]:
    """Kernels over one workspace on disk: ``make_kernel(files, *plugins, settings=...)``."""
    kernels: list[Kernel] = []

    def make(files: dict[str, str], *plugins: object,
             settings: dict[str, dict[str, Any]] | None = None) -> Kernel:
        from sari_ripple.plugin import RipplePlugin

        engine = build_engine(workspace_root, files)
        kernel = Kernel(engine, plugins=list(plugins) or [RipplePlugin()],
                        load_entry_points=False, settings=settings, analytics_sinks=[])
        kernels.append(kernel)
        return kernel

    yield make
    for kernel in kernels:
        kernel.close()
