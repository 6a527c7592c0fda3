"""``bench/navigation.py``: the fixed rule that chooses the names it asks about."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from bench_modules import load_bench, run_smoke
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
    assert bench.choose_names(workspace, "src/pkg") == ["get", "run", "many", "few"]


def test_a_package_without_get_or_run_is_chosen_by_use_alone(bench: ModuleType,
                                                             tmp_path: Path) -> None:
    files = {"src/lib/core.py": PACKAGE.replace("def get(", "def fetch(")
             .replace("def run(", "def start(").replace("get(1)", "fetch(1)"),
             "tests/test_core.py": USES.replace("get, ", "")}
    engine = engine_over(tmp_path / "lib", files)
    try:
        engine.ensure_index(progress=False)
        assert bench.choose_names(engine, "src/lib") == ["many", "few", "fetch"]
    finally:
        engine.close()


def test_the_package_folder_is_under_src_or_at_the_top(bench: ModuleType, tmp_path: Path
                                                       ) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    assert bench.package_folder(tmp_path, "pkg") == "src/pkg"
    assert bench.package_folder(tmp_path, "lib") == "lib"


def test_the_server_is_not_limited_to_fewer_files_than_the_index(bench: ModuleType,
                                                                  tmp_path: Path) -> None:
    # a project's checker settings that include only its package would leave every use
    # in tests/ out of the ground truth; the rest of its settings are kept
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pyright]\ninclude = ["src/pkg"]\npythonVersion = "3.8"\n')
    assert "include" in bench.server_over_every_file(tmp_path)
    assert json.loads((tmp_path / "pyrightconfig.json").read_text()) == \
        {"pythonVersion": "3.8"}
    unlimited = tmp_path / "other"
    unlimited.mkdir()
    (unlimited / "pyproject.toml").write_text('[tool.pyright]\npythonVersion = "3.8"\n')
    assert bench.server_over_every_file(unlimited) is None
    assert not (unlimited / "pyrightconfig.json").exists()


def test_rescore_scores_the_index_against_recorded_server_answers(
        bench: ModuleType, workspace: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    # the recorded truth: where the server said many() is called; one line is missing
    # from the truth, so the index's precision there is 3 of 4
    truth = [["tests/test_core.py", 3], ["tests/test_core.py", 4], ["tests/test_core.py", 5],
             ["src/pkg/core.py", 14]]
    recorded = [{"symbol": "src/pkg/core.py:9", "kind": "callers", "truth": truth[:3]}]
    assert bench.rescore(workspace, recorded) == 0
    printed = capsys.readouterr().out
    assert "callers     precision 0.750  recall 1.000  (3 right of 4 found, 3 true)" in printed


def test_by_name_no_definition_line_of_the_name_is_scored(
        bench: ModuleType, workspace: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    # asked by name, the index lists many()'s own line as a definition; the server's
    # references leave every declaration out, so neither side scores that line
    truth = [["tests/test_core.py", line] for line in (1, 3, 4, 5)] + [["src/pkg/core.py", 14]]
    recorded = [{"symbol": "src/pkg/core.py:9", "name": "many", "kind": "references",
                 "truth": truth}]
    bench.rescore(workspace, recorded)
    by_name = capsys.readouterr().out.split("by name")[1]
    assert "references  precision 1.000  recall 1.000  (5 right of 5 found, 5 true)" in by_name


def test_the_smoke_run_asks_the_real_server_and_prints_every_figure_and_target(
        bench: ModuleType) -> None:
    # ``bench`` skips without sari-lspgate, whose distribution brings basedpyright
    out = run_smoke("navigation")
    assert "close                   references" in out  # two definitions share the name
    assert "2 definitions share their name with another" in out
    for arm in ("index          ", "server         ", "index, by name ", "server, by name"):
        assert f"  {arm} references  precision" in out
    assert "by name, over all names" in out and "p50 latency" in out
    assert "'who calls X' x" in out and "grep/Sari" in out
    assert "targets:" in out and "per symbol, server-backed precision and recall" in out
