"""The budget through ``sari serve`` in a subprocess, over stdio and streamable HTTP.

The plugin reaches the server the way it does in production: through its entry point
(``SARI_PLUGINS=budget`` loads it and nothing else).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest
from budget_mcp import spend_and_refuse
from budget_workspace import FILES, build_engine
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport


def serve_argv(workspace: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "sari_core.cli.main", "serve", "--workspace", str(workspace),
            *extra]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    build_engine(root, FILES).close()  # writes and commits the files
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {"SARI_PLUGINS": "budget", "SARI_STATE_DIR": str(tmp_path / "state"),
            "SARI_CACHE_DIR": str(tmp_path / "cache"), "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path / "home")}


@asynccontextmanager
async def stdio_client(workspace: Path, env: dict[str, str], log: Path) -> AsyncIterator[Client]:
    argv = serve_argv(workspace)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    with log.open("w", encoding="utf-8") as errlog:
        async with Client(stdio_transport(params, errlog=errlog),
                          read_timeout_seconds=60) as client:
            yield client


@contextmanager
def http_url(workspace: Path, env: dict[str, str], log_path: Path) -> Iterator[str]:
    """``sari serve --transport http --port 0``; yields the URL it announces on stderr."""
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(serve_argv(workspace, "--transport", "http", "--port", "0"),
                                   env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 60  # a guard against a hang, not a timing assertion
        while True:
            announced = [line.rsplit(" ", 1)[-1] for line in log_path.read_text().splitlines()
                         if "serving MCP over streamable HTTP at " in line]
            if announced:
                yield announced[0]
                return
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("sari serve did not start:\n" + log_path.read_text())
            time.sleep(0.05)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def test_the_26th_read_is_refused_over_stdio(workspace: Path, env: dict[str, str],
                                                   tmp_path: Path) -> None:
    async with stdio_client(workspace, env, tmp_path / "stdio.log") as client:
        await spend_and_refuse(client)


async def test_the_26th_read_is_refused_over_http(workspace: Path, env: dict[str, str],
                                                  tmp_path: Path) -> None:
    with http_url(workspace, env, tmp_path / "http.log") as url:
        async with Client(url, read_timeout_seconds=60) as client:
            await spend_and_refuse(client)
