"""bench/persistence.py runs (smoke mode): both backends where PostgreSQL can be had, and the
team load loses nothing it acknowledged."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sari_persistence")
BENCH = Path(__file__).resolve().parents[2] / "bench" / "persistence.py"


@pytest.mark.slow  # a minute: two backends, two team loads of subprocesses
def test_the_persistence_bench_smoke_run_counts_every_acknowledged_record() -> None:
    from postgres_server import required, unavailable_reason

    done = subprocess.run([sys.executable, str(BENCH), "--smoke"], capture_output=True,
                          text=True, timeout=900, cwd=BENCH.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    backends = ["sqlite"]
    if unavailable_reason() is None:
        backends.append("postgresql")
    elif required():
        pytest.fail(f"PostgreSQL is required here: {unavailable_reason()}")
    else:
        assert "postgresql: not measured:" in out
    for backend in backends:
        assert f"read path, {backend}:" in out and f"sustained inserts, {backend}:" in out
        loads = re.findall(rf"team load, {backend}: .*acknowledged ([\d,]+), counted in the "
                           rf"database ([\d,]+), lost (-?\d+)", out)
        assert len(loads) == 2, out
        for acknowledged, counted, lost in loads:
            assert acknowledged == counted and lost == "0" and acknowledged != "0"
    if "postgresql" in backends:  # the database stopped: every call still answered
        assert re.search(r"context_query during an outage, postgresql .* 5/5 answered "
                         r"EXECUTION_LOG_UNAVAILABLE", out), out
