"""Spawning ``sari serve`` for end-to-end tests: a git workspace, a test plugin, transports.

The raising test plugin reaches the subprocess the way real plugins do: through
an entry point of group ``sari``, declared by a ``*.dist-info`` folder on
``PYTHONPATH`` (no installation needed).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import IO

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport
from sari_http import serve_argv, serve_http

HERE = Path(__file__).resolve().parent

APP = '''\
"""The demo application."""

import json


def handle_request(payload):
    """Answer one request."""
    data = json.loads(payload)
    return {"echo": data, "size": len(payload)}


class Router:
    def route(self, path):
        return handle_request(path)
'''
UTIL = "def helper():\n    return 41\n"
LONG = "".join(f"value_{number} = {number}\n" for number in range(1, 301))


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull,
                        "GIT_CONFIG_NOSYSTEM": "1"})


def make_git_workspace(root: Path) -> Path:
    """A committed repository; ``src/util.py`` then changed in the work tree."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP, encoding="utf-8")
    (root / "src" / "util.py").write_text(UTIL, encoding="utf-8")
    (root / "src" / "long.py").write_text(LONG, encoding="utf-8")
    (root / "boom.py").write_text("print('boom')\n", encoding="utf-8")
    (root / "README.md").write_text("# Demo\n\nSee src/app.py.\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=Test", "-c", "user.email=test@example.com", "add", ".")
    git(root, "-c", "user.name=Test", "-c", "user.email=test@example.com",
        "commit", "-q", "-m", "initial")
    (root / "src" / "util.py").write_text("def helper():\n    return 42\n", encoding="utf-8")
    return root


def plugin_site(root: Path) -> Path:
    """A folder whose dist-info declares ``raiser = raising_plugin:RaisingPlugin``."""
    info = root / "sari_raiser_test-0.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sari-raiser-test\n"
                                   "Version: 0.0.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[sari]\nraiser = raising_plugin:RaisingPlugin\n",
                                           encoding="utf-8")
    return root


def server_env(tmp: Path, plugins: str = "raiser") -> dict[str, str]:
    site = plugin_site(tmp / "site")
    return {
        "SARI_PLUGINS": plugins,
        "SARI_STATE_DIR": str(tmp / "state"),
        "SARI_CACHE_DIR": str(tmp / "cache"),
        "SARI_LOG_LEVEL": "INFO",
        "PYTHONPATH": os.pathsep.join([str(site), str(HERE)]),
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp / "home"),
    }


@asynccontextmanager
async def stdio_client(workspace: Path, env: dict[str, str], errlog: IO[str]
                       ) -> AsyncIterator[Client]:
    argv = serve_argv(workspace)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with Client(stdio_transport(params, errlog=errlog), read_timeout_seconds=60) as client:
        yield client


@contextmanager
def http_server(workspace: Path, env: dict[str, str], log_path: Path,
                startup_bound: float = 60.0) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``sari serve --transport http --port 0``; yields its URL (read from its stderr)."""
    with serve_http(workspace, env, log_path, bound=startup_bound) as served:
        yield served.url, served.process


async def wait_for_index(client: Client, bound: float = 60.0) -> None:
    """Search until the index says it is complete (bounded, not timed)."""
    with anyio.fail_after(bound):
        while True:
            result = await client.call_tool("search", {"query": "handle_request",
                                                       "session_id": "index-probe"})
            meta = (result.structured_content or {}).get("meta", {})
            if meta.get("index_ready") is True:
                return
            await anyio.sleep(0.1)
