"""sari-aggregation tests: skipped when the plugin is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sari_aggregation")

from aggregation_workspace import FILES, build_engine  # noqa: E402
from kernel_fixtures import KernelFactory, Kernels, Settings  # noqa: E402

from sari_core import Kernel  # noqa: E402


@pytest.fixture
def make_kernel(workspace_root: Path, kernels: Kernels) -> KernelFactory:
    """Fresh kernels over one workspace: ``make_kernel(*plugins, settings=...)``.

    ``make_kernel()`` registers a fresh :class:`AggregationPlugin`;
    ``make_kernel(core=True)`` gives the policy-free kernel the tests take as truth.
    """

    def make(*plugins: object, settings: Settings | None = None, core: bool = False) -> Kernel:
        if not plugins and not core:
            from sari_aggregation import AggregationPlugin

            plugins = (AggregationPlugin(),)
        return kernels.build(build_engine(workspace_root, FILES), plugins, settings)

    return make
