"""Where ``sari serve`` spends its start-up, phase by phase.

Clients give a server a few seconds to answer ``initialize`` (Codex: 10 s by
default), and most of Sari's start-up is importing the MCP SDK. ``sari serve``
times its phases with a :class:`StartupClock` and logs them; with
``SARI_STARTUP_REPORT=1`` it also prints them to stderr as one JSON line, which is
how ``sari doctor`` (:func:`measure`) and ``bench/startup.py`` read them from a
fresh process (imports cached in the measuring process would hide their cost).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPORT_ENV = "SARI_STARTUP_REPORT"
REPORT_PREFIX = "sari: start-up "
# A phase run on a thread after ``initialize`` was answered (the kernel opening): reported,
# but not part of the time to the reply.
BACKGROUND_SUFFIX = " (after initialize)"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "sari-doctor", "version": "1"}}}


@dataclass
class StartupClock:
    """Seconds per start-up phase, in the order they ran."""

    phases: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - started

    def describe(self) -> str:
        return ", ".join(f"{name} {seconds * 1000:.0f} ms"
                         for name, seconds in dict(self.phases).items())

    def report(self) -> None:
        """Print the phases to stderr when the caller asked for them (``SARI_STARTUP_REPORT``)."""
        if os.environ.get(REPORT_ENV):
            print(REPORT_PREFIX + json.dumps(dict(self.phases)), file=sys.stderr, flush=True)


@dataclass(frozen=True)
class StartupMeasure:
    """A measured ``sari serve`` start: wall time to the initialize reply and its phases."""

    initialize_seconds: float
    phases: dict[str, float]

    def describe(self) -> str:
        accounted = sum(seconds for name, seconds in self.phases.items()
                        if not name.endswith(BACKGROUND_SUFFIX))
        parts = [f"{name} {seconds * 1000:.0f} ms" for name, seconds in self.phases.items()]
        parts.append(f"interpreter, CLI and handshake "
                     f"{max(0.0, self.initialize_seconds - accounted) * 1000:.0f} ms")
        return f"initialize answered in {self.initialize_seconds:.2f} s: " + ", ".join(parts)


def measure(workspace: Path, timeout: float = 60.0,
            python: str | None = None) -> StartupMeasure:
    """Start ``sari serve`` on ``workspace`` in a fresh process and time its initialize reply.

    :param python: the interpreter to run it with (default: this one).
    """
    env = {**os.environ, REPORT_ENV: "1"}
    argv = [python or sys.executable, "-m", "sari_core.cli.main", "serve", "--workspace", str(workspace)]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        process.stdin.flush()
        replies: list[bytes] = []
        stdout = process.stdout
        reader = threading.Thread(target=lambda: replies.append(stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        if not replies:
            raise TimeoutError(f"no initialize reply within {timeout:.0f} s")
        reply = replies[0]
        elapsed = time.perf_counter() - started
        if b'"result"' not in reply:
            raise RuntimeError(f"initialize failed: {reply[:200]!r}")
        process.stdin.close()
        process.stdin = None  # closed: communicate() must not flush it
        _, stderr = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    phases: dict[str, float] = {}
    for line in stderr.decode("utf-8", errors="replace").splitlines():
        if line.startswith(REPORT_PREFIX):
            phases = json.loads(line[len(REPORT_PREFIX):])
    return StartupMeasure(elapsed, phases)
