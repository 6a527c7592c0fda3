"""A symbol worker that fails (killed, or writing what is not a frame: a profiler or a
library printing to its stdout) is stopped and replaced, and every file still gets its
symbols."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from sari_core.engine.index import symbol_jobs
from sari_core.engine.index.symbol_worker import Parsed, parse_batch

FILES = 120


def source(number: int) -> bytes:
    return "".join(f"def function_{number}_{index}(value):\n    return value\n\n"
                   for index in range(30)).encode()


def jobs_list() -> list[tuple[int, str, bytes]]:
    return [(number, "python", source(number)) for number in range(FILES)]


def finish_within(jobs: symbol_jobs.SymbolJobs, got: list[Parsed], seconds: float = 90
                  ) -> None:
    """``jobs.finish()`` into ``got``; fails instead of hanging when it never returns."""
    thread = threading.Thread(target=lambda: got.extend(jobs.finish()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the build waited forever for a failed worker"


def until_replaced(jobs: symbol_jobs.SymbolJobs, count: int, got: list[Parsed],
                   seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while jobs.replaced < count:
        assert time.monotonic() < deadline, f"{jobs.replaced} workers replaced, not {count}"
        got.extend(jobs.completed())
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(symbol_jobs, "BATCH_BYTES", 8_000)  # many batches per worker
    monkeypatch.setenv("SARI_INDEX_WORKERS", "2")


def test_a_killed_worker_is_replaced_and_its_files_still_get_their_symbols() -> None:
    expected = {file_id: symbols for file_id, symbols, _ in parse_batch(jobs_list())}
    jobs = symbol_jobs.SymbolJobs(symbol_jobs.POOL_THRESHOLD_FILES)
    got: list[Parsed] = []
    first = jobs.worker_pids()
    assert len(first) == 2
    for position, (file_id, language, data) in enumerate(jobs_list()):
        jobs.add(file_id, language, data)
        if position == FILES // 3:
            os.kill(first[0], signal.SIGKILL)
        got.extend(jobs.completed())
    until_replaced(jobs, 1, got)
    later = jobs.worker_pids()
    assert first[0] not in later and len(later) == 2 and not alive(first[0])
    assert first[1] in later and alive(first[1])  # the other one is kept
    finish_within(jobs, got)
    assert {file_id: symbols for file_id, symbols, _ in got} == expected
    assert jobs.replaced == 1


def test_a_worker_writing_what_is_not_a_frame_is_stopped_and_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As under a profiler: every worker's stdout starts with text. Each is stopped (not
    kept until the build closes), replaced a bounded number of times, and the main process
    parses what they could not answer."""
    (tmp_path / "sitecustomize.py").write_text(
        "import os\nos.write(1, b'profile written to stdout\\n')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    expected = {file_id: symbols for file_id, symbols, _ in parse_batch(jobs_list())}
    jobs = symbol_jobs.SymbolJobs(symbol_jobs.POOL_THRESHOLD_FILES)
    first = jobs.worker_pids()
    got: list[Parsed] = []
    for file_id, language, data in jobs_list():
        jobs.add(file_id, language, data)
        got.extend(jobs.completed())
    deadline = time.monotonic() + 60
    while set(first) & set(jobs.worker_pids()):  # each first worker's failure seen
        assert time.monotonic() < deadline, "a failed worker was kept"
        got.extend(jobs.completed())
        time.sleep(0.05)
    assert not any(alive(pid) for pid in first)  # stopped while the build goes on
    assert jobs.replaced >= 2
    finish_within(jobs, got)
    assert {file_id: symbols for file_id, symbols, _ in got} == expected
    assert 2 <= jobs.replaced <= symbol_jobs.MAX_REPLACEMENTS
