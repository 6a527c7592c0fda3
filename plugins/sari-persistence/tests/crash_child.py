"""Child process for the crash tests: records executions until it is killed.

``python crash_child.py DB RUN kill``: records continuously, printing
``flushed N`` after every commit (records commit in order, so ids RUN-0 ..
RUN-(N-1) are durable). ``... term``: queues a burst with a long flush interval,
prints ``queued N`` and waits for SIGTERM.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sari_persistence.exit_flush import install_sigterm_flush
from sari_persistence.records import ExecutionRow
from sari_persistence.store import ExecutionStore, WriterOptions


def row(run: str, number: int) -> ExecutionRow:
    return ExecutionRow(
        id=f"{run}-{number}", session_key=f"ws:0123456789ab:sid:{run}", session_id=run,
        workspace_hash="0123456789ab", tool="read", arguments={"target": f"f{number}.py"},
        ok=number % 7 != 0, target=f"f{number}.py", error_code=None, reason_codes=(),
        duration_ms=0.5, timestamp=int(time.time() * 1000),
        response={"text": "x" * (number % 300)}, source="sari")


def main() -> None:
    path, run, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if mode == "kill":
        store = ExecutionStore(path, WriterOptions(flush_interval_ms=10, batch_size=64),
                               on_commit=lambda n: print(f"flushed {n}", flush=True))
        print("ready", flush=True)
        number = 0
        while True:
            store.submit(row(run, number))
            number += 1
            if number % 32 == 0:
                time.sleep(0.0005)
    store = ExecutionStore(path, WriterOptions(flush_interval_ms=1000, batch_size=100000))
    install_sigterm_flush()
    for number in range(5000):
        store.submit(row(run, number))
    print(f"queued {store.stats.enqueued} committed {store.stats.committed}", flush=True)
    while True:
        time.sleep(0.05)


if __name__ == "__main__":
    main()
