"""A raw stdio client: ``sari serve`` in a subprocess, spoken to line by line.

The SDK's client only sends well-formed messages and hides how the server ends;
these tests need both the malformed lines and the exit code.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from e2e_harness import serve_argv

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "wire-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class WireServer:
    """``sari serve`` over pipes; replies are collected by a reader thread."""

    def __init__(self, workspace: Path, env: dict[str, str]) -> None:
        # stderr goes to a file: a pipe nobody reads while serving could fill and block.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finish()
        self.process = subprocess.Popen(serve_argv(workspace), env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self._stderr)
        self.replies: list[Any] = []
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            with self._arrived:
                self.replies.append(json.loads(raw))
                self._arrived.notify_all()

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def handshake(self) -> dict[str, Any]:
        self.send(INITIALIZE)
        reply = self.reply_to(0)
        self.send(INITIALIZED)
        return reply

    def reply_to(self, request_id: Any, timeout: float = 20.0) -> dict[str, Any]:
        """The reply whose id is ``request_id`` (a batch reply is searched too)."""
        def find() -> dict[str, Any] | None:
            for reply in self.replies:
                for item in reply if isinstance(reply, list) else [reply]:
                    if item.get("id") == request_id:
                        return item
            return None
        with self._arrived:
            if not self._arrived.wait_for(lambda: find() is not None, timeout):
                raise AssertionError(f"no reply to id {request_id!r}; got {self.replies}")
            found = find()
            assert found is not None
            return found

    def close_input(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        """Wait for the exit; the exit code and everything written to stderr."""
        code = self.process.wait(timeout)
        self._reader.join(timeout)
        self._stderr.seek(0)
        stderr = self._stderr.read().decode("utf-8", errors="replace")
        self._stderr.close()
        return code, stderr
