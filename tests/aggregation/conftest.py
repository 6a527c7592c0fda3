"""sari-aggregation tests: skipped when the plugin is not installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_aggregation")

from aggregation_workspace import FILES, build_engine  # noqa: E402

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

    ``make_kernel()`` registers a fresh :class:`AggregationPlugin`;
    ``make_kernel(core=True)`` gives the policy-free kernel the tests take as truth.
    """
    kernels: list[Kernel] = []

    def make(*plugins: object, settings: dict[str, dict[str, Any]] | None = None,
             core: bool = False) -> Kernel:
        if not plugins and not core:
            from sari_aggregation import AggregationPlugin

            plugins = (AggregationPlugin(),)
        kernel = Kernel(build_engine(workspace_root, FILES), plugins=list(plugins),
                        load_entry_points=False, settings=settings, analytics_sinks=[])
        kernels.append(kernel)
        return kernel

    yield make
    for kernel in kernels:
        kernel.close()
