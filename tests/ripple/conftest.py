"""sari-ripple tests: skipped when the plugin is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sari_ripple")

from kernel_fixtures import KernelFactory, Kernels, Settings  # noqa: E402
from ripple_workspace import build_engine  # noqa: E402

from sari_core import Kernel  # noqa: E402


@pytest.fixture
def state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets its own state folder, so saved tier states never leak between tests."""
    folder = tmp_path / "state"
    monkeypatch.setenv("SARI_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def make_kernel(workspace_root: Path, state_folder: Path, kernels: Kernels) -> KernelFactory:
    """Kernels over one workspace on disk: ``make_kernel(files, *plugins, settings=...)``."""

    def make(files: dict[str, str], *plugins: object, settings: Settings | None = None) -> Kernel:
        from sari_ripple.plugin import RipplePlugin

        engine = build_engine(workspace_root, files)
        return kernels.build(engine, list(plugins) or [RipplePlugin()], settings)

    return make
