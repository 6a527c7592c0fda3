"""``sari search`` on a never-indexed tree gives the shell back right after its answer: the
build goes on in a detached process, and the next call finds it done or continues it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sari_core.cli import detached_build
from sari_core.engine.index.schema import default_index_path

FILES = 400  # enough that the build outlives the command's exit


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tree"
    for number in range(FILES):
        folder = root / f"pkg{number % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{number}.py").write_text(
            "".join(f"def function_{number}_{index}(value):\n    return value + {index}\n\n"
                    for index in range(40)))
    monkeypatch.setenv("SARI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SARI_PLUGINS", "none")
    return root.resolve()


def sari(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sari_core.cli.main", *argv],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))


def build_complete(index: Path) -> bool:
    with sqlite3.connect(index) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'build_complete'").fetchone()
    return row is not None and row[0] == "1"


def wait_for_build(index: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while detached_build.build_running(index):
        assert time.monotonic() < deadline, "the detached build never ended"
        time.sleep(0.2)


def build_past_its_first_phase(tree: Path, index: Path) -> int:
    """Give ``tree`` a parse long enough to be caught in, start its detached build, and
    return the builder's pid once the first phase is in (the parse then goes on)."""
    for number in range(FILES, 4 * FILES):
        (tree / f"more{number % 20}").mkdir(exist_ok=True)
        (tree / f"more{number % 20}" / f"mod{number}.py").write_text(
            "".join(f"class Extra{number}_{index}:\n    def run(self, value):\n"
                    f"        return value * {index}\n\n" for index in range(40)))
    pid = builder_pid(sari("search", "def function_3_1", "-w", str(tree)).stderr)
    deadline = time.monotonic() + 120
    while not (index.exists() and build_complete(index)):
        assert time.monotonic() < deadline, "the first phase never ended"
        time.sleep(0.005)
    return pid


def files_to_parse(index: Path) -> int:
    with sqlite3.connect(index) as conn:
        return int(conn.execute("SELECT count(*) FROM files WHERE symbols_pending").fetchone()[0])


def builder_pid(stderr: str) -> int:
    line = next(line for line in stderr.splitlines() if "in the background (process " in line)
    return int(line.split("(process ", 1)[1].split(",", 1)[0])


def test_the_shell_comes_back_before_the_index_exists_and_the_next_call_finds_it_built(
        tree: Path) -> None:
    index = default_index_path([tree])
    first = sari("search", "def function_7_3", "-w", str(tree))
    assert first.returncode == 0 and "pkg7/mod7.py:10" in first.stdout
    assert "(index still building)" in first.stdout
    assert not build_complete(index)  # the command is back; the build is not done
    builder_pid(first.stderr)
    wait_for_build(index)
    again = sari("search", "def function_7_3", "-w", str(tree), "--json")
    answer = json.loads(again.stdout)
    assert again.returncode == 0 and answer["meta"]["index_ready"] is True
    assert "background" not in again.stderr and build_complete(index)


def test_a_call_while_the_build_runs_answers_from_a_scan_and_starts_no_second_build(
        tree: Path) -> None:
    index = default_index_path([tree])
    first = sari("search", "def function_3_1", "-w", str(tree))
    pid = builder_pid(first.stderr)
    os.kill(pid, signal.SIGSTOP)  # held mid-build, so the next call surely meets it
    try:
        second = sari("search", "def function_5_2", "-w", str(tree))
    finally:
        os.kill(pid, signal.SIGCONT)
    assert second.returncode == 0 and "pkg5/mod5.py:7" in second.stdout
    assert "still being built in the background" in second.stderr
    wait_for_build(index)
    assert build_complete(index)


def test_a_killed_build_is_continued_by_the_next_call(tree: Path) -> None:
    index = default_index_path([tree])
    first = sari("search", "def function_3_1", "-w", str(tree))
    os.kill(builder_pid(first.stderr), signal.SIGKILL)
    time.sleep(0.2)
    assert not detached_build.build_running(index) and not build_complete(index)
    second = sari("search", "def function_3_1", "-w", str(tree))
    assert second.returncode == 0 and "in the background (process " in second.stderr
    wait_for_build(index)
    assert build_complete(index)
    third = json.loads(sari("search", "function_399_39", "-w", str(tree), "--kind", "symbol",
                            "--json").stdout)
    assert third["meta"]["index_ready"] is True
    assert [match["path"] for match in third["matches"]][:1] == ["pkg19/mod399.py"]


def test_a_call_that_needs_the_index_waits_for_the_running_build_instead_of_doubling_it(
        tree: Path) -> None:
    index = default_index_path([tree])
    first = sari("search", "def function_3_1", "-w", str(tree))
    builder_pid(first.stderr)
    callers = sari("search", "function_12_5", "-w", str(tree), "--kind", "references",
                   "--json")
    assert callers.returncode == 0 and json.loads(callers.stdout)["meta"]["index_ready"] is True
    assert build_complete(index)
    assert "indexed 400 of 400 files" in detached_build.log_path(index).read_text()


def test_the_build_runs_this_sari_even_in_a_tree_holding_another(tree: Path) -> None:
    """A workspace holding a ``sari_core`` package of its own (a checkout of another
    version) does not have its code run by the build."""
    (tree / "sari_core" / "cli").mkdir(parents=True)
    (tree / "sari_core" / "__init__.py").write_text("")
    (tree / "sari_core" / "cli" / "__init__.py").write_text("")
    (tree / "sari_core" / "cli" / "detached_build.py").write_text(
        "raise SystemExit('the workspace copy ran')\n")
    index = default_index_path([tree])
    first = sari("search", "def function_3_1", "-w", str(tree))
    builder_pid(first.stderr)
    wait_for_build(index)
    assert build_complete(index)
    assert "workspace copy" not in detached_build.log_path(index).read_text()


def test_a_text_search_while_the_build_parses_answers_at_once_instead_of_waiting_for_it(
        tree: Path) -> None:
    """The first phase is in (the index complete), the parse of the second goes on: a
    command meanwhile answers from a scan instead of waiting behind the build's lock for
    the whole parse."""
    index = default_index_path([tree])
    pid = build_past_its_first_phase(tree, index)
    os.kill(pid, signal.SIGSTOP)  # held in its second phase, its lock held
    try:
        assert files_to_parse(index) > 0, "the parse ended before the build was held"
        started = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "sari_core.cli.main", "search", "def function_5_2", "-w",
             str(tree)], capture_output=True, text=True, timeout=60, env=dict(os.environ))
        waited = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert second.returncode == 0 and "pkg5/mod5.py:7" in second.stdout
    assert waited < 30  # not the build's lock (held as long as the build is stopped)
    wait_for_build(index)
    assert build_complete(index)


def test_a_build_killed_in_its_parse_is_continued_in_the_background_not_in_the_shell(
        tree: Path) -> None:
    index = default_index_path([tree])
    pid = build_past_its_first_phase(tree, index)
    os.kill(pid, signal.SIGKILL)  # killed in its second phase
    time.sleep(0.2)
    assert files_to_parse(index) > 0, "the parse ended before the build was killed"
    assert not detached_build.build_running(index)
    second = sari("search", "def function_5_2", "-w", str(tree))
    assert second.returncode == 0 and "pkg5/mod5.py:7" in second.stdout
    assert "in the background (process " in second.stderr  # the parse goes on there
    wait_for_build(index)
    assert files_to_parse(index) == 0
    third = json.loads(sari("search", "Extra1599_39", "-w", str(tree), "--kind", "symbol",
                            "--json").stdout)
    assert [match["path"] for match in third["matches"]][:1] == ["more19/mod1599.py"]
