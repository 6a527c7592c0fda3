"""sari-budget tests: skipped when the plugin is not installed."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest

# Without sari-budget installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_budget") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-budget is not installed: plugins/sari-budget/tests is left out" if PLUGIN_MISSING else None


from budget_workspace import FILES, build_engine  # noqa: E402

from sari_core import Kernel  # noqa: E402
from sari_core.testing import KernelFactory, Kernels, Settings  # noqa: E402


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
