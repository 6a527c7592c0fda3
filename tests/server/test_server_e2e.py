"""End to end: ``sari serve`` in a subprocess, the real engine on a git repository, and
the SDK's client over stdio and over streamable HTTP (with concurrent clients)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_harness import (
    http_server,
    serve_argv,
    stdio_client,
    wait_for_index,
)
from mcp import Client

from sari_core.rendering import render

CLIENTS = 6


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    assert result.content[0].text == render(result.structured_content)  # the model's text
    assert result.is_error is (not result.structured_content["ok"])
    return result.structured_content


def error_code(result: types.CallToolResult) -> str:
    response = body(result)
    assert response["ok"] is False, response
    return response["error"]["code"]


Connect = Callable[[], Any]


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, workspace: Path, env: dict[str, str],
            tmp_path: Path) -> Connect:
    """A factory of connected clients for the transport under test."""
    if request.param == "stdio":
        errlog = (tmp_path / "stdio-server.log").open("w", encoding="utf-8")
        request.addfinalizer(errlog.close)

        def stdio() -> Any:
            return stdio_client(workspace, env, errlog)
        return stdio
    server = http_server(workspace, env, tmp_path / "http-server.log")
    url, _ = server.__enter__()
    request.addfinalizer(lambda: server.__exit__(None, None, None))

    @asynccontextmanager
    async def http() -> AsyncIterator[Client]:
        async with Client(url, read_timeout_seconds=60) as client:
            yield client
    return http


async def test_the_contract_end_to_end(connect: Connect, workspace: Path) -> None:
    async with connect() as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names[:4] == ["search", "read", "edit", "write"]
        assert {"explode", "whoami"} <= set(names)
        await wait_for_index(client)

        found = body(await client.call_tool("search", {"query": "handle_request"}))
        assert found["ok"] and any(m["path"] == "src/app.py" for m in found["matches"])
        symbols = body(await client.call_tool("search", {"query": "Router", "kind": "symbol"}))
        assert symbols["matches"][0]["path"] == "src/app.py"

        page = body(await client.call_tool("read", {"mode": "file", "target": "src/long.py",
                                                    "offset": 11, "limit": 5}))
        assert page["text"].splitlines() == [f"value_{n} = {n}" for n in range(11, 16)]
        symbol = body(await client.call_tool("read", {"mode": "symbol",
                                                      "target": "handle_request"}))
        assert "def handle_request(payload):" in symbol["text"]
        assert symbol["location"]["file"] == "src/app.py"
        snippet = body(await client.call_tool("read", {"mode": "snippet", "target": "src/app.py",
                                                       "start_line": 6, "end_line": 6}))
        assert snippet["text"].strip() == "def handle_request(payload):"
        diff = body(await client.call_tool("read", {"mode": "diff_preview",
                                                    "target": "src/util.py", "against": "HEAD"}))
        assert "-    return 41" in diff["diff"] and "+    return 42" in diff["diff"]
        legacy = body(await client.call_tool("read_file", {"path": "README.md"}))
        assert legacy["mode"] == "file" and legacy["text"].startswith("# Demo")

        written = body(await client.call_tool("write", {"path": "src/new.py",
                                                        "content": "NAME = 'old'\n"}))
        assert written["ok"]
        edited = body(await client.call_tool("edit", {"path": "src/new.py",
                                                      "old_string": "'old'",
                                                      "new_string": "'new'"}))
        assert edited["ok"]
        assert (workspace / "src" / "new.py").read_text(encoding="utf-8") == "NAME = 'new'\n"

        assert error_code(await client.call_tool(
            "read", {"mode": "file", "target": "src/app.py", "against": "HEAD"})) == "INVALID_ARGS"
        assert error_code(await client.call_tool(
            "read", {"mode": "file", "target": "../outside.txt"})) == "PATH_OUTSIDE_WORKSPACE"
        assert error_code(await client.call_tool(
            "write", {"path": "/tmp/sari-escape.txt", "content": "x"})) == \
            "PATH_OUTSIDE_WORKSPACE"
        assert not Path("/tmp/sari-escape.txt").exists()
        assert error_code(await client.call_tool("no_such_tool", {})) == "UNKNOWN_TOOL"

        assert error_code(await client.call_tool("explode", {"message": "kaboom"})) == \
            "PLUGIN_ERROR"
        after = body(await client.call_tool("read", {"mode": "file", "target": "README.md"}))
        assert after["ok"]
        cursed = body(await client.call_tool("read", {"mode": "file", "target": "boom.py"}))
        assert cursed["ok"] and "PLUGIN_ERROR" in cursed["meta"]["stabilization"]["reason_codes"]
        assert body(await client.call_tool("search", {"query": "helper"}))["ok"]


async def test_a_change_made_outside_sari_is_raised_before_the_next_call(
        connect: Connect, workspace: Path) -> None:
    async with connect() as client:
        await wait_for_index(client)
        (workspace / "src" / "util.py").write_text("def helper():\n    return 43\n",
                                                   encoding="utf-8")
        with anyio.fail_after(30):
            while True:
                response = body(await client.call_tool("search", {"query": "helper"}))
                if "EXTERNAL_CHANGE" in response["meta"]["stabilization"]["reason_codes"]:
                    break
                await anyio.sleep(0.1)


async def test_concurrent_http_clients_keep_separate_sessions(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    with http_server(workspace, env, tmp_path / "http-server.log") as (url, process):
        async with Client(url) as probe:
            await wait_for_index(probe)
        results: dict[int, dict[str, Any]] = {}

        async def client_work(index: int) -> None:
            async with Client(url, read_timeout_seconds=60) as client:
                for _ in range(index + 1):
                    assert body(await client.call_tool("search", {"query": "handle_request"}))["ok"]
                read = body(await client.call_tool("read", {"mode": "snippet",
                                                            "target": "src/app.py",
                                                            "start_line": 1, "end_line": 3}))
                who = body(await client.call_tool("whoami", {}))
                results[index] = {"metrics": read["meta"]["stabilization"]["metrics_snapshot"],
                                  "key": who["session_key"]}

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                for index in range(CLIENTS):
                    group.start_soon(client_work, index)
        assert process.poll() is None
        # Each client ended its HTTP session on exit; the server ended its policy session.
        log = tmp_path / "http-server.log"
        with anyio.fail_after(30):
            while len(re.findall(r"connection [0-9a-f-]{36} closed",
                                 log.read_text(encoding="utf-8"))) < CLIENTS + 1:
                await anyio.sleep(0.1)
    assert sorted(results) == list(range(CLIENTS))
    for index, outcome in results.items():
        assert outcome["metrics"]["search_count"] == index + 1
        assert outcome["metrics"]["reads_count"] == 1
    keys = [outcome["key"] for outcome in results.values()]
    assert len(set(keys)) == CLIENTS and all(":conn:" in key for key in keys)


async def test_initialize_is_answered_before_the_index_is_built(
        tmp_path: Path, env: dict[str, str]) -> None:
    """No full index before ``initialize``: right after it, the index is still being built."""
    big = tmp_path / "big"
    for package in range(40):
        folder = big / f"pkg{package}"
        folder.mkdir(parents=True)
        for module in range(50):
            (folder / f"mod{module}.py").write_text(
                "".join(f"def function_{package}_{module}_{n}(value):\n    return value + {n}\n"
                        for n in range(20)), encoding="utf-8")
    with (tmp_path / "big-server.log").open("w", encoding="utf-8") as errlog:
        async with stdio_client(big, env, errlog) as client:
            state = body(await client.call_tool("index_state", {}))
            assert state["index_ready"] is False
            await wait_for_index(client)
            assert body(await client.call_tool("index_state", {}))["index_ready"] is True


async def test_logs_and_stray_prints_go_to_stderr_never_to_stdout(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    errlog_path = tmp_path / "stderr.log"
    with errlog_path.open("w", encoding="utf-8") as errlog:
        async with stdio_client(workspace, env, errlog) as client:
            assert body(await client.call_tool("read", {"mode": "file",
                                                        "target": "README.md"}))["ok"]
            # A plugin printing to stdout mid-call: the protocol must not see it.
            await client.call_tool("read", {"mode": "file", "target": "loud.md"})
            assert body(await client.call_tool("read", {"mode": "file",
                                                        "target": "README.md"}))["ok"]
    assert "a stray print that must not reach the protocol" in errlog_path.read_text()
    assert "a stray fd-1 write that must not reach the protocol" in errlog_path.read_text()
    log_file = Path(env["SARI_STATE_DIR"]) / "logs" / "server.log"
    for text in (errlog_path.read_text(encoding="utf-8"), log_file.read_text(encoding="utf-8")):
        assert "serving" in text and "over stdio" in text


def test_serve_refuses_a_missing_workspace(tmp_path: Path, env: dict[str, str]) -> None:
    done = subprocess.run(serve_argv(tmp_path / "missing"), env=env, capture_output=True,
                          text=True, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "is not a folder" in done.stderr and done.stdout == ""


async def test_an_oversized_request_is_refused_and_the_connection_stays_usable(
        connect: Connect, workspace: Path) -> None:
    async with connect() as client:
        assert error_code(await client.call_tool(
            "write", {"path": "big.txt", "content": "x" * (5 * 1024 * 1024)})) == \
            "REQUEST_TOO_LARGE"
        assert body(await client.call_tool("read", {"mode": "file", "target": "README.md"}))["ok"]
    assert not (workspace / "big.txt").exists()


async def test_a_body_beyond_the_transport_limit_gets_413_and_the_server_lives_on(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    with http_server(workspace, env, tmp_path / "http-server.log") as (url, process):
        huge = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write",' \
               b'"arguments":{"path":"x","content":"' + b"x" * (17 * 1024 * 1024) + b'"}}}'
        request = urllib.request.Request(url, data=huge, method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.URLError) as refused:
            await anyio.to_thread.run_sync(urllib.request.urlopen, request)
        # The server answers 413 from Content-Length and closes; a client still uploading
        # may see the reset instead of the status.
        if isinstance(refused.value, urllib.error.HTTPError):
            assert refused.value.code == 413
        else:
            assert isinstance(refused.value.reason, (ConnectionResetError, BrokenPipeError))
        async with Client(url) as client:
            assert body(await client.call_tool("read", {"mode": "file",
                                                        "target": "README.md"}))["ok"]
        assert process.poll() is None
