"""Fixtures for sari-persistence: a kernel over the in-memory engine, its own log file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_persistence")

from memory_engine import MemoryEngine  # noqa: E402

from sari_core.kernel import Kernel  # noqa: E402
from sari_persistence.plugin import PersistencePlugin  # noqa: E402

FILES = {
    "src/parser.py": "def parse(text):\n    return text.split()\n",
    "src/lexer.py": "TOKENS = ['a', 'b']\n",
    "README.md": "# demo\n",
}
ROOT = "/tmp/sari-persistence-ws"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "execution_log.db"


@pytest.fixture
def make_kernel(db_path: Path) -> Iterator[Callable[..., Kernel]]:
    """Build kernels with the persistence plugin recording into ``db_path``; closed after."""
    kernels: list[Kernel] = []

    def build(files: dict[str, str] | None = None, **settings: Any) -> Kernel:
        options = {"db_path": str(db_path), "install_sigterm_handler": False, **settings}
        kernel = Kernel(MemoryEngine(dict(files or FILES), root=ROOT),
                        plugins=[PersistencePlugin()], load_entry_points=False,
                        analytics_sinks=[], settings={"persistence": options})
        kernels.append(kernel)
        return kernel

    yield build
    for kernel in kernels:
        kernel.close()
