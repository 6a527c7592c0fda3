"""sari-relevance tests: skipped when the plugin is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sari_relevance")

from kernel_fixtures import KernelFactory, Kernels, Settings  # noqa: E402
from relevance_workspace import FILES, build_workspace  # noqa: E402

from sari_core import Kernel  # noqa: E402


@pytest.fixture
def make_kernel(workspace_root: Path, kernels: Kernels) -> KernelFactory:
    """Fresh kernels over one workspace: ``make_kernel(*plugins, settings=...)``."""

    def make(*plugins: object, settings: Settings | None = None) -> Kernel:
        if not plugins:
            from sari_relevance import RelevancePlugin

            plugins = (RelevancePlugin(),)
        return kernels.build(build_workspace(workspace_root, FILES), plugins, settings)

    return make
