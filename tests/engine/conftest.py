"""Fixtures of the engine tests: a private copy of the fixture repository per test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_repo import build_repository

from sari_core.engine import Workspace
from sari_core.kernel import Kernel


@pytest.fixture(scope="session")
def _template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository and its outside folder, built with git once per test session."""
    base = tmp_path_factory.mktemp("engine-template")
    (base / "repo").mkdir()
    (base / "outside").mkdir()
    build_repository(base / "repo", base / "outside")
    return base


@pytest.fixture
def _copy(tmp_path: Path, _template: Path) -> Path:
    """A private copy for one test (copying is much faster than running git again)."""
    target = tmp_path / "ws"
    shutil.copytree(_template, target, symlinks=True)
    return target.resolve()


@pytest.fixture
def outside(_copy: Path) -> Path:
    return _copy / "outside"


@pytest.fixture
def repo(_copy: Path) -> Path:
    return _copy / "repo"


@pytest.fixture(scope="session")
def shared_repo(_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy that read-only tests share (they must not change it)."""
    target = tmp_path_factory.mktemp("engine-shared") / "ws"
    shutil.copytree(_template, target, symlinks=True)
    return (target / "repo").resolve()


@pytest.fixture(scope="session")
def shared(shared_repo: Path) -> Iterator[Workspace]:
    """A workspace over ``shared_repo``, indexed once, for tests that only search and read."""
    engine = Workspace([shared_repo])
    try:
        engine.ensure_index(progress=False)
        yield engine
    finally:
        engine.close()


@pytest.fixture
def workspace(repo: Path) -> Iterator[Workspace]:
    engine = Workspace([repo])
    try:
        engine.ensure_index(progress=False)
        yield engine
    finally:
        engine.close()


@pytest.fixture(scope="session")
def shared_kernel(shared: Workspace) -> Iterator[Kernel]:
    """A plugin-free kernel over the shared workspace (read-only tests)."""
    with Kernel(shared, load_entry_points=False, analytics_sinks=[]) as kernel:
        yield kernel


@pytest.fixture
def kernel(workspace: Workspace) -> Iterator[Kernel]:
    with Kernel(workspace, load_entry_points=False, analytics_sinks=[]) as kernel:
        yield kernel
