"""``bench/navigation.py``: the fixed rule that chooses the names it asks about."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from bench_modules import load_bench
from git_workspace import engine_over

from sari_core.engine import Workspace

PACKAGE = '''def get(key):
    return key


def run():
    return get(1)


def many():
    return 1


def few():
    return many() + many()


def unused():
    return 0


def _private():
    return 0


def ab():
    return 0
'''
USES = '''from pkg.core import few, get, many, run, _private, ab

many()
many()
many()
few()
few()
run()
_private()
ab()
'''


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    pytest.importorskip("sari_lspgate", reason="the bench drives sari-lspgate's server")
    return load_bench("navigation")


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    engine = engine_over(tmp_path / "repo", {"src/pkg/__init__.py": "",
                                             "src/pkg/core.py": PACKAGE,
                                             "tests/test_core.py": USES})
    engine.ensure_index(progress=False)
    yield engine
    engine.close()


def test_get_and_run_come_first_then_the_most_used(bench: ModuleType,
                                                   workspace: Workspace) -> None:
    # get and run are used least, yet chosen first; names never used, private or
    # shorter than three characters are not chosen
    assert bench.choose_names(workspace, "pkg") == ["get", "run", "many", "few"]


def test_a_package_without_get_or_run_is_chosen_by_use_alone(bench: ModuleType,
                                                             tmp_path: Path) -> None:
    files = {"src/lib/core.py": PACKAGE.replace("def get(", "def fetch(")
             .replace("def run(", "def start(").replace("get(1)", "fetch(1)"),
             "tests/test_core.py": USES.replace("get, ", "")}
    engine = engine_over(tmp_path / "lib", files)
    try:
        engine.ensure_index(progress=False)
        assert bench.choose_names(engine, "lib") == ["many", "few", "fetch"]
    finally:
        engine.close()
