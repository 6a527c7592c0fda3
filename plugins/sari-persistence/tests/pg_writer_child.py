"""One Sari server of several writing one PostgreSQL log at once (run as a subprocess).

    python pg_writer_child.py URL MACHINE CALLS

Waits for the go file, then makes CALLS reads in the shared session ``team-run`` and records
as many chat frames in the shared chat session ``team-chat``; prints how many were accepted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sari_core.kernel import Kernel
from sari_core.testing import MemoryEngine
from sari_persistence import ExecutionLog
from sari_persistence.plugin import PersistencePlugin


def main() -> int:
    url, machine, calls, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():
        time.sleep(0.005)
    kernel = Kernel(MemoryEngine({"src/a.py": "value = 1\n" * 50}, root=f"/srv/{machine}"),
                    plugins=[PersistencePlugin()], load_entry_points=False, analytics_sinks=[],
                    settings={"persistence": {"database_url": url, "machine": machine,
                                              "install_sigterm_handler": False}})
    chat = ExecutionLog.of(kernel).chat_session("team-chat")
    accepted = 0
    for index in range(calls):
        response = kernel.execute_read({"mode": "file", "target": "src/a.py", "session_id": "team-run"})
        assert response["ok"], response
        accepted += chat.user(f"{machine} step {index}")
    kernel.close()
    print(accepted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
