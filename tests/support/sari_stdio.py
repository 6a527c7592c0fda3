"""``sari serve`` over stdio with every installed plugin, driven by the official MCP client.

For tests that attack the server the way an agent would: each test gets its own
state, cache and home folders, so nothing leaks between tests or into the user's.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport


def isolated_env(tmp: Path) -> dict[str, str]:
    """Environment of a server whose state, cache and home are below ``tmp``."""
    (tmp / "home").mkdir(parents=True, exist_ok=True)
    return {
        "SARI_STATE_DIR": str(tmp / "state"),
        "SARI_CACHE_DIR": str(tmp / "cache"),
        "SARI_LOG_LEVEL": "INFO",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp / "home"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }


@asynccontextmanager
async def serve_stdio(workspace: Path, env: dict[str, str], errlog: IO[str]
                      ) -> AsyncIterator[Client]:
    """A connected client of ``sari serve --workspace <workspace>`` (stdio)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sari_core.cli.main", "serve", "--workspace", str(workspace)], env=env)
    async with Client(stdio_transport(params, errlog=errlog), read_timeout_seconds=60) as client:
        yield client


def body(result: types.CallToolResult) -> dict[str, Any]:
    """The structured response of a tool call (what the model is given)."""
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def read_past_refgate(client: Client, arguments: dict[str, Any]) -> dict[str, Any]:
    """``read`` with ``arguments``; when the refgate plugin asks for a search first (and then
    for the ref it issued), make the search and repeat the read it suggests."""
    reply = body(await client.call_tool("read", arguments))
    for _ in range(2):
        if reply.get("ok") or reply["error"]["code"] not in ("SEARCH_FIRST_REQUIRED",
                                                             "SEARCH_REF_REQUIRED"):
            return reply
        suggested = reply["meta"]["stabilization"]["next_calls"]
        search = next((c for c in suggested if c["tool"] == "search"), None)
        again = next((c for c in suggested if c["tool"] == "read"), None)
        if again is not None:
            reply = body(await client.call_tool("read", {**arguments, **again["arguments"]}))
        elif search is not None:
            await client.call_tool("search", search["arguments"])
            reply = body(await client.call_tool("read", arguments))
    return reply
