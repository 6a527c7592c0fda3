"""sari-refgate tests: skipped when the plugin is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sari_refgate")

from kernel_fixtures import KernelFactory, Kernels, Settings  # noqa: E402
from refgate_workspace import FILES, build_workspace  # noqa: E402

from sari_core import Kernel  # noqa: E402


@pytest.fixture
def make_kernel(workspace_root: Path, kernels: Kernels) -> KernelFactory:
    """Fresh kernels over one workspace: ``make_kernel(*plugins, settings=..., files=...)``."""

    def make(*plugins: object, settings: Settings | None = None,
             files: dict[str, str] | None = None) -> Kernel:
        if not plugins:
            from sari_refgate import RefgatePlugin

            plugins = (RefgatePlugin(),)
        return kernels.build(build_workspace(workspace_root, files or FILES), plugins, settings)

    return make
