"""``sari serve --transport http --port 0`` as a subprocess, yielded once it announced its URL.

Every test that talks to the served HTTP transport starts the server through here, so the
start-up wait (bounded, not timed) and the clean SIGINT shutdown live in one place.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

READY = "serving MCP over streamable HTTP at "


def serve_argv(workspace: Path | None, *extra: str) -> list[str]:
    """The command line of ``sari serve`` on ``workspace`` with this interpreter (None: no
    ``--workspace``, so the clients' roots or the current folder are served)."""
    named = ["--workspace", str(workspace)] if workspace is not None else []
    return [sys.executable, "-m", "sari_core.cli.main", "serve", *named, *extra]


@dataclass
class Served:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8")


@contextmanager
def serve_http(workspace: Path | None, env: dict[str, str], log: Path, *options: str,
               bound: float = 60.0, cwd: Path | None = None) -> Iterator[Served]:
    """Start the server with ``options`` (in ``cwd``); yield once it announced its URL on
    stderr."""
    with log.open("w", encoding="utf-8") as errors:
        process = subprocess.Popen(
            serve_argv(workspace, "--transport", "http", "--port", "0", *options),
            env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=errors)
    try:
        deadline = time.monotonic() + bound  # a guard against a hang, not a timing assertion
        while True:
            text = log.read_text(encoding="utf-8")
            found = [line for line in text.splitlines() if READY in line]
            if found:
                url = found[0].rsplit(" ", 1)[-1]
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("sari serve did not start:\n" + text)
            time.sleep(0.05)
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        yield Served(url, port, process, log)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
