"""The budget through ``sari serve`` in a subprocess, over stdio and streamable HTTP.

The plugin reaches the server the way it does in production: through its entry point
(``SARI_PLUGINS=budget`` loads it and nothing else).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest
from budget_mcp import spend_and_refuse
from budget_workspace import FILES, build_engine
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport
from sari_http import serve_argv, serve_http


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
    with serve_http(workspace, env, log_path) as served:
        yield served.url


async def test_the_26th_read_is_refused_over_stdio(workspace: Path, env: dict[str, str],
                                                   tmp_path: Path) -> None:
    async with stdio_client(workspace, env, tmp_path / "stdio.log") as client:
        await spend_and_refuse(client)


async def test_the_26th_read_is_refused_over_http(workspace: Path, env: dict[str, str],
                                                  tmp_path: Path) -> None:
    with http_url(workspace, env, tmp_path / "http.log") as url:
        async with Client(url, read_timeout_seconds=60) as client:
            await spend_and_refuse(client)
