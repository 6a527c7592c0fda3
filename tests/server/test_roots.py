"""``sari serve`` without ``--workspace`` serves the roots its client declares (the official
Python client over stdio): it asks for them once the client is initialized, follows
``notifications/roots/list_changed``, keeps path safety per root, and serves the current
folder for a client without roots."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

# The SDK marks roots deprecated for the protocol era after the handshake; clients use them.
pytestmark = pytest.mark.filterwarnings("ignore:The roots capability is deprecated")


def folders(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name in ("alpha", "beta", "cwd"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}_only.py").write_text(f"def {name}_marker():\n    return 1\n",
                                                encoding="utf-8")
        made[name] = folder
    return made


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"SARI_STATE_DIR": str(tmp_path / "state"), "SARI_CACHE_DIR": str(tmp_path / "cache"),
            "HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", ""),
            "SARI_PLUGINS": "none"}


@asynccontextmanager
async def client_with_roots(cwd: Path, env: dict[str, str], roots: list[Path] | None,
                            errlog: Any, mode: str = "legacy"
                            ) -> AsyncIterator[tuple[Client, list[Path]]]:
    """A stdio client of ``sari serve`` (no --workspace) started in ``cwd``; ``roots`` is
    the list it answers roots/list with (mutable), or None for a client without roots.
    ``mode="auto"`` probes ``server/discover`` first, as Claude Code does."""
    current = list(roots or [])

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=folder.as_uri(), name=folder.name)
                                            for folder in current])

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "sari_core.cli.main", "serve"], env=env, cwd=cwd)
    callback = list_roots if roots is not None else None
    # Roots are asked for over the handshake era's connection (the server sends a request).
    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60,
                      list_roots_callback=callback, mode=mode) as client:
        yield client, current


async def found_paths(client: Client, name: str) -> list[str]:
    result = await client.call_tool("search", {"query": name, "kind": "path"})
    return [match["path"] for match in (result.structured_content or {}).get("matches", [])]


async def test_the_clients_roots_are_served_and_followed(tmp_path: Path) -> None:
    made = folders(tmp_path)
    with (tmp_path / "server.log").open("w") as errlog:
        async with client_with_roots(made["cwd"], env_for(tmp_path), [made["alpha"]],
                                     errlog) as (client, roots):
            # the first call waits for the roots answer: it never reads the wrong folder
            assert await found_paths(client, "alpha_only") == ["alpha_only.py"]
            assert await found_paths(client, "cwd_only") == []
            read = await client.call_tool("read", {"mode": "file", "target": "alpha_only.py"})
            assert not read.is_error
            outside = await client.call_tool("read", {"mode": "file",
                                                      "target": "../beta/beta_only.py"})
            assert outside.is_error
            assert outside.structured_content["error"]["code"] == "PATH_OUTSIDE_WORKSPACE"

            roots.append(made["beta"])
            await client.send_roots_list_changed()
            with anyio.fail_after(60):
                while not await found_paths(client, "beta_only"):
                    await anyio.sleep(0.2)
            # two roots: paths carry their root's folder name, and each root guards its own
            assert await found_paths(client, "beta_only") == ["beta/beta_only.py"]
            beta = await client.call_tool("read", {"mode": "file",
                                                   "target": "beta/beta_only.py"})
            assert not beta.is_error and "beta_marker" in beta.content[0].text
            escape = await client.call_tool("read", {"mode": "file",
                                                     "target": "beta/../../cwd/cwd_only.py"})
            assert escape.is_error


async def test_a_client_that_probes_server_discover_first_is_led_to_the_handshake(
        tmp_path: Path) -> None:
    """The probe is declined before the SDK fixes the connection's era by it, so the
    client's fallback initialize is accepted on the same pipe and its roots are asked for."""
    made = folders(tmp_path)
    with (tmp_path / "server.log").open("w") as errlog:
        async with client_with_roots(made["cwd"], env_for(tmp_path), [made["alpha"]], errlog,
                                     mode="auto") as (client, _):
            assert client.protocol_version < "2026"
            assert await found_paths(client, "alpha_only") == ["alpha_only.py"]


async def test_a_client_without_roots_gets_the_current_folder(tmp_path: Path) -> None:
    made = folders(tmp_path)
    with (tmp_path / "server.log").open("w") as errlog:
        async with client_with_roots(made["cwd"], env_for(tmp_path), None,
                                     errlog) as (client, _):
            assert await found_paths(client, "cwd_only") == ["cwd_only.py"]


async def test_roots_that_name_no_local_folder_leave_the_current_folder(tmp_path: Path) -> None:
    made = folders(tmp_path)
    with (tmp_path / "server.log").open("w") as errlog:
        async with client_with_roots(made["cwd"], env_for(tmp_path),
                                     [tmp_path / "no-such-folder"], errlog) as (client, _):
            assert await found_paths(client, "cwd_only") == ["cwd_only.py"]
