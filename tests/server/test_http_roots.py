"""``sari serve --transport http`` without ``--workspace`` serves each session the roots its
client declares (the official Python client over streamable HTTP): sessions with different
roots are served side by side, each root guards its own paths, a session follows
``notifications/roots/list_changed``, a client without roots gets the current folder, a
folder set no session uses any more is closed, and no root outside the folder the server was
started in is served."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

sys.path.insert(0, str(Path(__file__).parents[1] / "support"))

from sari_http import serve_http  # noqa: E402 - needs the path above
from test_roots import env_for, found_paths  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:The roots capability is deprecated")


def folders(tmp_path: Path) -> dict[str, Path]:
    """The server's folder ("cwd", holding top_only.py) with two projects inside it, and a
    folder beside it ("outside")."""
    top = tmp_path / "projects"
    made = {"cwd": top, "alpha": top / "alpha", "beta": top / "beta",
            "outside": tmp_path / "outside"}
    for name, folder in made.items():
        folder.mkdir(parents=True, exist_ok=True)
        stem = "top" if name == "cwd" else name
        (folder / f"{stem}_only.py").write_text(f"def {stem}_marker():\n    return 1\n",
                                                encoding="utf-8")
    return made


@asynccontextmanager
async def http_client(url: str, roots: list[Path] | None, mode: str = "legacy"
                      ) -> AsyncIterator[tuple[Client, list[Path]]]:
    """A client of the HTTP server answering roots/list with ``roots`` (mutable), or one
    without the roots capability when None; ``mode="auto"`` probes server/discover first."""
    current = list(roots or [])

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=folder.as_uri(), name=folder.name)
                                            for folder in current])

    callback = list_roots if roots is not None else None
    async with Client(url, read_timeout_seconds=60, list_roots_callback=callback,
                      mode=mode) as client:
        yield client, current


async def test_each_http_session_is_served_its_clients_roots(tmp_path: Path) -> None:
    made = folders(tmp_path)
    log = tmp_path / "server.log"
    env = {**env_for(tmp_path), "SARI_LOG_LEVEL": "INFO"}
    with serve_http(None, env, log, cwd=made["cwd"]) as served:
        async with (http_client(served.url, [made["alpha"]]) as (alpha, alpha_roots),
                    http_client(served.url, [made["beta"]], mode="auto") as (beta, _),
                    http_client(served.url, None) as (plain, _)):
            # each session's first call waits for its roots: never the wrong folder
            assert await found_paths(alpha, "alpha_only") == ["alpha_only.py"]
            assert await found_paths(alpha, "beta_only") == []
            assert await found_paths(beta, "beta_only") == ["beta_only.py"]
            assert await found_paths(plain, "top_only") == ["top_only.py"]
            assert await found_paths(alpha, "top_only") == []

            # path safety per root: a sibling root, by relative or absolute path, is outside
            for target in ("../beta/beta_only.py", str(made["beta"] / "beta_only.py"),
                           "../top_only.py"):
                outside = await alpha.call_tool("read", {"mode": "file", "target": target})
                assert outside.is_error, target
                assert outside.structured_content["error"]["code"] == "PATH_OUTSIDE_WORKSPACE"
            inside = await alpha.call_tool("read", {"mode": "file", "target": "alpha_only.py"})
            assert not inside.is_error and "alpha_marker" in inside.content[0].text

            # the alpha session moves to beta: it follows, and alpha (no session left) closes
            alpha_roots[:] = [made["beta"]]
            await alpha.send_roots_list_changed()
            with anyio.fail_after(60):
                while await found_paths(alpha, "beta_only") != ["beta_only.py"]:
                    await anyio.sleep(0.2)
            assert await found_paths(alpha, "alpha_only") == []
            with anyio.fail_after(30):
                while "no session is served " + str(made["alpha"]) not in served.stderr():
                    await anyio.sleep(0.1)
        # every session ended: the beta kernel both shared is closed too, once
        with anyio.fail_after(30):
            while "no session is served " + str(made["beta"]) not in served.stderr():
                await anyio.sleep(0.1)
        assert len(re.findall(r"no session is served .*beta", served.stderr())) == 1


async def test_an_http_server_with_workspace_ignores_the_clients_roots(tmp_path: Path) -> None:
    made = folders(tmp_path)
    with serve_http(made["alpha"], env_for(tmp_path), tmp_path / "server.log") as served:
        async with http_client(served.url, [made["beta"]]) as (client, _):
            assert await found_paths(client, "alpha_only") == ["alpha_only.py"]
            assert await found_paths(client, "beta_only") == []


async def test_a_root_outside_the_servers_folder_is_not_served(tmp_path: Path) -> None:
    """Any client reaching the server may declare roots: none outside its folder is served."""
    made = folders(tmp_path)
    log = tmp_path / "server.log"
    env = {**env_for(tmp_path), "SARI_LOG_LEVEL": "INFO"}
    with serve_http(None, env, log, cwd=made["cwd"]) as served:
        async with http_client(served.url, [made["outside"], made["alpha"]]) as (client, _):
            first = await client.call_tool("search", {"query": "alpha_only", "kind": "path"})
            assert "outside the folder this Sari server was started in" in _text(first)
            assert str(made["cwd"]) not in _text(first)  # no server path in an answer
            assert await found_paths(client, "alpha_only") == ["alpha_only.py"]
            assert await found_paths(client, "outside_only") == []
        # Every root refused: no workspace at all (never the server's folder, which holds
        # every other project), and every call says why.
        async with http_client(served.url, [made["outside"]]) as (client, _):
            for arguments in ({"query": "top_only", "kind": "path"},
                              {"query": "alpha_marker"}):
                refused = await client.call_tool("search", arguments)
                assert refused.is_error
                assert refused.structured_content["error"]["code"] == "NO_WORKSPACE"
                assert "None of your roots is served" in _text(refused)
                assert "top_only" not in _text(refused) and "alpha_only" not in _text(refused)
            wrote = await client.call_tool("write", {"path": "alpha/planted.txt",
                                                     "content": "x\n"})
            assert wrote.structured_content["error"]["code"] == "NO_WORKSPACE"
            assert not (made["alpha"] / "planted.txt").exists()
            assert not (made["cwd"] / "alpha" / "planted.txt").exists()
        # Roots naming no local folder are refused the same way.
        async with http_client(served.url, [made["cwd"] / "no-such-folder"]) as (client, _):
            refused = await client.call_tool("search", {"query": "top_only", "kind": "path"})
            assert refused.structured_content["error"]["code"] == "NO_WORKSPACE"
            assert "none names an existing local folder" in _text(refused)
        assert f"root {made['outside']} is outside" in served.stderr()


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def test_roots_beyond_the_bound_are_refused_not_served_the_servers_folder(
        tmp_path: Path) -> None:
    made = folders(tmp_path)
    log = tmp_path / "server.log"
    env = {**env_for(tmp_path), "SARI_LOG_LEVEL": "INFO", "SARI_HTTP_MAX_WORKSPACES": "1"}
    with serve_http(None, env, log, cwd=made["cwd"]) as served:
        async with http_client(served.url, [made["alpha"]]) as (first, _):
            assert await found_paths(first, "alpha_only") == ["alpha_only.py"]
            async with http_client(served.url, [made["beta"]]) as (second, _):
                for query in ("top_only", "alpha_only", "beta_only"):
                    told = await second.call_tool("search", {"query": query, "kind": "path"})
                    assert told.structured_content["error"]["code"] == "NO_WORKSPACE"
                    assert "already serves as many folder sets" in _text(told)
                wrote = await second.call_tool("write", {"path": "alpha/planted.txt",
                                                         "content": "x\n"})
                assert wrote.structured_content["error"]["code"] == "NO_WORKSPACE"
                assert not (made["alpha"] / "planted.txt").exists()
            # The first session is served as before.
            assert await found_paths(first, "alpha_only") == ["alpha_only.py"]
            assert "SARI_HTTP_MAX_WORKSPACES" in served.stderr()


class _Connection:
    """The SDK's per-connection object, as much of it as the roots follower uses."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.exit_stack = AsyncExitStack()


def _context(connection: _Connection) -> Any:
    params = SimpleNamespace(capabilities=SimpleNamespace(roots=SimpleNamespace()))
    return SimpleNamespace(connection=connection, protocol_version="2025-11-25",
                           session=SimpleNamespace(client_params=params))


async def test_a_session_that_ends_while_its_roots_are_asked_leaves_no_index_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sari_core.cli.commands.serve import open_kernel
    from sari_core.server import session_roots
    from sari_core.server.app import SariServer

    made = folders(tmp_path)
    answered = anyio.Event()

    async def slow_answer(ctx: Any, waits: Any) -> tuple[list[Path], int]:
        await answered.wait()
        return [made["alpha"]], 1

    monkeypatch.setattr(session_roots, "ask_declared_roots", slow_answer)
    server = SariServer(open_kernel([made["cwd"]]))
    follower = session_roots.SessionRoots(server, open_kernel, [made["cwd"]])
    connection = _Connection()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(follower._on_initialized, _context(connection), None)
            await anyio.sleep(0.05)
            await connection.exit_stack.aclose()  # the client leaves before answering
            answered.set()
        assert follower.served() == {}
    finally:
        follower.close()
        server.kernel.close()
