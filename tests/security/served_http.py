"""``sari serve --transport http`` as a subprocess with any bind options, for the security tests."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from e2e_harness import make_git_workspace, serve_argv, server_env  # noqa: E402

__all__ = ["Served", "make_git_workspace", "serve", "server_env"]

READY = "serving MCP over streamable HTTP at "


@dataclass
class Served:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8")


@contextmanager
def serve(workspace: Path, env: dict[str, str], log: Path, *options: str,
          bound: float = 60.0) -> Iterator[Served]:
    """Start the server with ``options``; yield once it announced its URL."""
    with log.open("w", encoding="utf-8") as errors:
        process = subprocess.Popen(
            serve_argv(workspace, "--transport", "http", "--port", "0", *options),
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + bound
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


def start_fails(workspace: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    """Run a server start that is expected to be refused; bounded."""
    return subprocess.run(serve_argv(workspace, "--transport", "http", "--port", "0", *options),
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
