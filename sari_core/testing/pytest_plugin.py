"""Sari's pytest fixtures, loaded through ``sari-core``'s ``pytest11`` entry point.

- ``sari_workspace``: an empty workspace folder for the test;
- ``sari_kernels``: ``sari_kernels.build(engine, plugins, settings)`` builds kernels with
  exactly those plugins, closed when the test ends.

Both keep Sari's state and cache folders (``SARI_STATE_DIR``, ``SARI_CACHE_DIR``) inside the
test's temporary folder unless the run already set them. Loading this module imports
nothing of Sari's beyond the (lazy) package itself, so it costs other test runs nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from sari_core.testing.kernels import Kernels


@pytest.fixture
def sari_workspace(tmp_path: Path) -> Path:
    """An empty folder for the test's workspace."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def sari_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Kernels]:
    """Build kernels with ``sari_kernels.build(engine, plugins, settings)``; closed at teardown."""
    from sari_core.testing.kernels import Kernels

    for var, folder in (("SARI_STATE_DIR", "state"), ("SARI_CACHE_DIR", "cache")):
        monkeypatch.setenv(var, os.environ.get(var) or str(tmp_path / folder))
    built = Kernels()
    yield built
    built.close()
