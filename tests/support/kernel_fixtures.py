"""Fixtures the plugin test folders share: a workspace folder and kernels closed after the test.

``tests/conftest.py`` loads this module as a pytest plugin, so every folder has the
``workspace_root`` and ``kernels`` fixtures (a folder's own fixture of the same name wins).
A plugin folder's ``conftest.py`` builds its ``make_kernel`` on :class:`Kernels`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # loaded with the root conftest: import nothing of Sari's before a test needs it
    from sari_core import Kernel

KernelFactory = Callable[..., "Kernel"]
Settings = dict[str, dict[str, Any]]


class Kernels:
    """Kernels built for one test, each over its own engine and only the plugins given."""

    def __init__(self) -> None:
        self._built: list[Kernel] = []

    def build(self, engine: Any, plugins: Sequence[object],
              settings: Settings | None = None) -> Kernel:
        """A kernel with exactly ``plugins``: never the installed entry points, no analytics."""
        from sari_core import Kernel

        kernel = Kernel(engine, plugins=list(plugins), load_entry_points=False,
                        settings=settings, analytics_sinks=[])
        self._built.append(kernel)
        return kernel

    def close(self) -> None:
        for kernel in self._built:
            kernel.close()


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    """An empty folder for the test's workspace."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def kernels() -> Iterator[Kernels]:
    """Build kernels with ``kernels.build(engine, plugins, settings)``; closed at teardown."""
    built = Kernels()
    yield built
    built.close()
