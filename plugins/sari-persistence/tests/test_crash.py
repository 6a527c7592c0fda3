"""Hard kills never corrupt the log nor lose a flushed record; SIGTERM flushes everything."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

CHILD = Path(__file__).parent / "crash_child.py"
KILLS = 24

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


def spawn(db_path: Path, run: str, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(CHILD), str(db_path), run, mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_repeatedly(db_path: Path, seed: int, kills: int) -> int:
    """Start, SIGKILL at a random moment, check the file; ``kills`` times on one database.

    :return: how many records the children reported flushed in total.
    """
    rng = random.Random(seed)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    reported_total = 0
    for attempt in range(kills):
        run = f"run{attempt}"
        child = spawn(db_path, run, "kill")
        assert child.stdout is not None
        ready = child.stdout.readline().strip()
        if ready != "ready":
            _, err = child.communicate(timeout=10)
            raise AssertionError(f"child did not start: {err}")
        time.sleep(rng.uniform(0.0, 0.1))
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate(timeout=10)
        assert child.returncode == -signal.SIGKILL, err
        flushed = [int(line.split()[1]) for line in out.splitlines() if line.startswith("flushed")]
        reported = max(flushed, default=0)
        reported_total += reported
        conn = sqlite3.connect(db_path)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            ids = {row[0] for row in conn.execute(
                "SELECT id FROM executions WHERE session_id = ?", (run,))}
        finally:
            conn.close()
        missing = [n for n in range(reported) if f"{run}-{n}" not in ids]
        assert missing == [], f"{db_path.name} kill {attempt}: {len(missing)} flushed records lost"
    return reported_total


def test_sigkill_at_random_moments_loses_nothing_flushed(tmp_path: Path) -> None:
    # Three databases in parallel, each killed KILLS // 3 times (recovering every time).
    with ThreadPoolExecutor(max_workers=3) as pool:
        totals = list(pool.map(
            lambda worker: kill_repeatedly(tmp_path / f"log{worker}.db", 2026 + worker,
                                           KILLS // 3), range(3)))
    assert all(total > 0 for total in totals)  # the children did get records to disk


def test_sigterm_flushes_every_queued_record(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    child = spawn(db_path, "term", "term")
    assert child.stdout is not None
    line = child.stdout.readline().split()
    assert line[:2] == ["queued", "5000"]
    assert int(line[3]) < 5000  # most records were still in memory when SIGTERM came
    os.kill(child.pid, signal.SIGTERM)
    _, err = child.communicate(timeout=20)
    assert child.returncode == -signal.SIGTERM, err
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("SELECT COUNT(*) FROM executions WHERE session_id = 'term'"
                            ).fetchone() == (5000,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
