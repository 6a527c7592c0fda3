"""Many servers writing one execution log at once: the team load of bench/persistence.py.

Each server is a process of its own (its own GIL, as on separate machines): a kernel with
sari-persistence over the stub engine, whose sessions (one thread each) make read calls
back to back (or with a pause between calls, as an agent thinks) for a bounded time. A
call's record is *acknowledged* when the writer queue
accepted it; its write latency runs from then to the commit that holds it. At the end the
orchestrator counts the rows in the database, per machine: acknowledged minus counted is
what was lost.

    python bench/persistence_load.py child TARGET MACHINE SECONDS SESSIONS GAP_MS GO_FILE
"""

from __future__ import annotations

import collections
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _settings(target: str, machine: str) -> dict[str, Any]:
    where = {"database_url": target} if target.startswith("postgresql://") else {"db_path": target}
    return {**where, "machine": machine, "install_sigterm_handler": False}


def child(target: str, machine: str, seconds: float, sessions: int, gap_ms: float,
          go: Path) -> dict[str, Any]:
    from stub_engine import StubEngine

    from sari_core import Kernel
    from sari_persistence.plugin import PersistencePlugin

    text = "".join(f"    value_{i} = compute(value_{i - 1})\n" for i in range(1, 41))
    kernel = Kernel(StubEngine(text, HERE), plugins=[PersistencePlugin()],
                    load_entry_points=False, analytics_sinks=[],
                    settings={"persistence": _settings(target, machine)})
    store = kernel.pm.get_plugin("persistence").store
    accepted_at: collections.deque[float] = collections.deque()
    latencies: list[float] = []
    submit = store.submit

    def timed_submit(record: Any) -> bool:
        accepted = submit(record)
        if accepted:
            accepted_at.append(time.perf_counter())
        return accepted

    def committed(_: int) -> None:
        now = time.perf_counter()
        # The queue is first in, first out: the oldest acknowledged records were committed.
        while len(latencies) < store.stats.committed and accepted_at:
            latencies.append(now - accepted_at.popleft())

    store.submit = timed_submit  # type: ignore[method-assign]
    store.writer.on_commit = committed
    calls = [0] * sessions
    while not go.exists():
        time.sleep(0.002)
    deadline = time.perf_counter() + seconds

    def session(index: int) -> None:
        args = {"mode": "file", "target": "bench.py", "session_id": f"{machine}-s{index}"}
        while time.perf_counter() < deadline:
            kernel.execute_read(args)
            calls[index] += 1
            if gap_ms:
                time.sleep(gap_ms / 1000)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kernel.close()  # drains the queue
    drained_at = time.time()
    stats = store.stats
    ordered = sorted(latencies) or [0.0]
    return {"machine": machine, "calls": sum(calls), "drained_at": drained_at, "acknowledged": stats.enqueued,
            "committed": stats.committed, "dropped": stats.dropped_full,
            "failed": stats.failed, "lost": stats.lost,
            "p50_ms": 1000 * statistics.median(ordered),
            "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]}


def counted(target: str) -> dict[str, int]:
    """Rows in the database per machine."""
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target) as conn:
            rows = conn.execute("SELECT machine, count(*) FROM executions "
                                "GROUP BY machine").fetchall()
    else:
        import sqlite3

        with sqlite3.connect(target) as conn:
            rows = conn.execute("SELECT machine, count(*) FROM executions "
                                "GROUP BY machine").fetchall()
    return {str(machine): int(count) for machine, count in rows}


def team_load(target: str, servers: int, sessions: int, seconds: float, gap_ms: float,
              folder: Path) -> dict[str, Any]:
    """``servers`` processes x ``sessions`` sessions writing ``target`` for ``seconds``."""
    go = folder / f"go-{time.monotonic_ns()}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE),
                                                         os.environ.get("PYTHONPATH", "")])}
    children = [subprocess.Popen([sys.executable, __file__, "child", target, f"server-{n}",
                                  str(seconds), str(sessions), str(gap_ms), str(go)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for n in range(servers)]
    time.sleep(1.0)  # every server open (and the schema migrated) before the clock starts
    go.touch()
    started = time.time()
    results = []
    for process in children:
        out, err = process.communicate(timeout=seconds + 300)
        if process.returncode != 0:
            raise RuntimeError(f"a load server failed: {err[-2000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    elapsed = max(r["drained_at"] for r in results) - started  # the last queue drained
    in_database = counted(target)
    acknowledged = sum(r["acknowledged"] for r in results)
    rows = sum(in_database.get(r["machine"], 0) for r in results)
    return {"servers": servers, "sessions": sessions, "seconds": seconds, "gap_ms": gap_ms,
            "calls": sum(r["calls"] for r in results), "acknowledged": acknowledged,
            "counted": rows, "lost": acknowledged - rows,
            "dropped": sum(r["dropped"] for r in results),
            "failed": sum(r["failed"] for r in results),
            "reported_lost": sum(r["lost"] for r in results),
            "throughput": rows / elapsed, "elapsed": elapsed,
            "p99_ms": max(r["p99_ms"] for r in results),
            "p50_ms": statistics.median(r["p50_ms"] for r in results)}


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "child":
        _, _, where, name, secs, count, gap, go_file = sys.argv
        print(json.dumps(child(where, name, float(secs), int(count), float(gap), Path(go_file))))
        sys.exit(0)
    sys.exit("usage: persistence_load.py child TARGET MACHINE SECONDS SESSIONS GAP_MS GO_FILE")
