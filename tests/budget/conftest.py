"""sari-budget tests: skipped when the plugin is not installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_budget")

from budget_workspace import FILES, build_engine  # noqa: E402

from sari_core import Kernel  # noqa: E402

KernelFactory = Callable[..., Kernel]


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def make_kernel(workspace_root: Path) -> Iterator[KernelFactory]:
    """Fresh kernels over one workspace: ``make_kernel(*plugins, settings=...)``.

    Without plugins the kernel gets a fresh :class:`BudgetPlugin` — never the
    installed entry points.
    """
    kernels: list[Kernel] = []

    def make(*plugins: object, settings: dict[str, dict[str, Any]] | None = None) -> Kernel:
        if not plugins:
            from sari_budget import BudgetPlugin

            plugins = (BudgetPlugin(),)
        kernel = Kernel(build_engine(workspace_root, FILES), plugins=list(plugins),
                        load_entry_points=False, settings=settings, analytics_sinks=[])
        kernels.append(kernel)
        return kernel

    yield make
    for kernel in kernels:
        kernel.close()
