"""sari-lspgate tests: skipped when the plugin is not installed. They run the real servers
(ruff server, basedpyright-langserver) that the plugin's distribution depends on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_lspgate")

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
