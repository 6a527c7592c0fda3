"""Fixtures for sari-persistence: a kernel over the in-memory engine, its own log file."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

# Without sari-persistence installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_persistence") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-persistence is not installed: plugins/sari-persistence/tests is left out" if PLUGIN_MISSING else None


from sari_core.kernel import Kernel  # noqa: E402
from sari_core.testing import MemoryEngine  # noqa: E402

FILES = {
    "src/parser.py": "def parse(text):\n    return text.split()\n",
    "src/lexer.py": "TOKENS = ['a', 'b']\n",
    "README.md": "# demo\n",
}
ROOT = "/tmp/sari-persistence-ws"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "execution_log.db"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real PostgreSQL server for the session (skipped, or failed where it is required)."""
    from postgres_server import PostgresServer, required, unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        if required():
            pytest.fail(f"PostgreSQL tests are required here but cannot run: {reason}")
        pytest.skip(reason)
    server = PostgresServer()
    yield server
    server.close()


@pytest.fixture
def pg_url(postgres_server: Any) -> str:
    """A fresh, empty database on the session's server."""
    return str(postgres_server.create_database())


@pytest.fixture
def log_backend(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Where make_kernel's log goes: the SQLite file, or (SARI_TEST_PERSISTENCE_BACKEND=
    postgresql) a fresh PostgreSQL database, so the same tests hold both backends."""
    if os.environ.get("SARI_TEST_PERSISTENCE_BACKEND", "sqlite") == "postgresql":
        return {"database_url": request.getfixturevalue("pg_url")}
    return {}


@pytest.fixture
def make_kernel(db_path: Path, log_backend: dict[str, Any]) -> Iterator[Callable[..., Kernel]]:
    """Build kernels with the persistence plugin recording into ``db_path``; closed after."""
    from sari_persistence.plugin import PersistencePlugin

    kernels: list[Kernel] = []

    def build(files: dict[str, str] | None = None, **settings: Any) -> Kernel:
        options = {"db_path": str(db_path), "install_sigterm_handler": False, **log_backend,
                   **settings}
        kernel = Kernel(MemoryEngine(dict(files or FILES), root=ROOT),
                        plugins=[PersistencePlugin()], load_entry_points=False,
                        analytics_sinks=[], settings={"persistence": options})
        kernels.append(kernel)
        return kernel

    yield build
    for kernel in kernels:
        kernel.close()
