"""sari-budget tests: skipped when the plugin is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sari_budget")

from budget_workspace import FILES, build_engine  # noqa: E402
from kernel_fixtures import KernelFactory, Kernels, Settings  # noqa: E402

from sari_core import Kernel  # noqa: E402


@pytest.fixture
def make_kernel(workspace_root: Path, kernels: Kernels) -> KernelFactory:
    """Fresh kernels over one workspace: ``make_kernel(*plugins, settings=...)``.

    Without plugins the kernel gets a fresh :class:`BudgetPlugin` — never the
    installed entry points.
    """

    def make(*plugins: object, settings: Settings | None = None) -> Kernel:
        if not plugins:
            from sari_budget import BudgetPlugin

            plugins = (BudgetPlugin(),)
        return kernels.build(build_engine(workspace_root, FILES), plugins, settings)

    return make
