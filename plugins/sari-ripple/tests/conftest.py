"""sari-ripple tests: skipped when the plugin is not installed."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest

# Without sari-ripple installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_ripple") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-ripple is not installed: plugins/sari-ripple/tests is left out" if PLUGIN_MISSING else None


from sari_core import Kernel  # noqa: E402
from sari_core.testing import KernelFactory, Kernels, Settings  # noqa: E402


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
        from ripple_workspace import build_engine

        from sari_ripple.plugin import RipplePlugin

        engine = build_engine(workspace_root, files)
        return kernels.build(engine, list(plugins) or [RipplePlugin()], settings)

    return make
