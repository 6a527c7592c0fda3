"""sari-lspgate tests: skipped when the plugin is not installed. They run the real servers
(ruff server, basedpyright-langserver) that the plugin's distribution depends on."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

# Without sari-lspgate installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_lspgate") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-lspgate is not installed: plugins/sari-lspgate/tests is left out" if PLUGIN_MISSING else None


from lspgate_workspace import KernelFactory, lspgate_kernel  # noqa: E402

from sari_core import Kernel  # noqa: E402


@pytest.fixture
def make_kernel(tmp_path: Path) -> Iterator[KernelFactory]:
    """``make_kernel(files, **lspgate_settings)``: kernels closed (servers stopped) after."""
    kernels: list[Kernel] = []

    def make(files: dict[str, str], **settings: Any) -> Kernel:
        root = tmp_path / f"ws{len(kernels)}"
        root.mkdir()
        kernel = lspgate_kernel(root, files, **settings)
        kernels.append(kernel)
        return kernel

    yield make
    for kernel in kernels:
        kernel.close()
