"""The MCP server driven in-process by the SDK's client (handshake era, like real clients)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from server_fixture_files import FILES

from sari_core.errors import ErrorCode
from sari_core.models import ReadCall, ReadResult
from sari_core.rendering import render
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine

CORE_TOOLS = ["search", "read", "edit", "write"]
LEGACY_TOOLS = ["read_file", "read_symbol", "get_snippet", "dry_run_diff"]


def body(result: types.CallToolResult) -> dict[str, Any]:
    """The response object; asserts that the text block carries the same JSON."""
    assert result.structured_content is not None
    assert len(result.content) == 1 and result.content[0].type == "text"
    assert result.content[0].text == render(result.structured_content)  # the model's text
    assert result.is_error is (not result.structured_content["ok"])
    return result.structured_content


def connect(server: SariServer) -> Client:
    return Client(server.lowlevel, mode="legacy")


async def test_lists_core_and_plugin_tools_with_schemas(make_server) -> None:
    async with connect(make_server()) as client:
        listed = (await client.list_tools()).tools
    names = [tool.name for tool in listed]
    assert names == CORE_TOOLS + ["explode", "index_state", "whoami"]
    for tool in listed:
        assert tool.description and len(tool.description) > 20
        assert tool.input_schema["type"] == "object"
        assert "session_id" not in tool.input_schema["properties"]  # programs pass it
        assert tool.output_schema is not None and "ok" in tool.output_schema["required"]
    by_name = {tool.name: tool for tool in listed}
    assert by_name["read"].input_schema["required"] == ["mode", "target"]
    assert by_name["read"].annotations.read_only_hint is True
    assert by_name["write"].annotations is None  # MCP's defaults: not read-only, destructive
    assert by_name["explode"].input_schema["properties"]["message"]["description"]


async def test_search_then_read_in_every_mode(make_server) -> None:
    async with connect(make_server()) as client:
        found = body(await client.call_tool("search", {"query": "getcwd"}))
        assert found["ok"] and found["matches"][0]["path"] == "pkg/app.py"
        calls = {
            "file": {"mode": "file", "target": "pkg/app.py", "offset": 4, "limit": 2},
            "snippet": {"mode": "snippet", "target": "pkg/app.py", "start_line": 4,
                        "end_line": 5},
            "symbol": {"mode": "symbol", "target": "pkg/util.py"},
            "diff_preview": {"mode": "diff_preview", "target": "pkg/util.py", "against": "HEAD"},
        }
        for mode, arguments in calls.items():
            response = body(await client.call_tool("read", arguments))
            assert response["ok"] and response["mode"] == mode
        file_read = body(await client.call_tool("read", calls["file"]))
        assert file_read["text"] == "def handler(event):\n    return os.getcwd()\n"
        metrics = file_read["meta"]["stabilization"]["metrics_snapshot"]
        assert metrics["search_count"] == 1 and metrics["reads_count"] == 5


async def test_deprecated_wrappers_read_through_read(make_server) -> None:
    async with connect(make_server()) as client:
        wrappers = {
            "read_file": ({"path": "pkg/util.py"}, "file"),
            "read_symbol": ({"name": "pkg/util.py"}, "symbol"),
            "get_snippet": ({"path": "pkg/app.py", "start_line": 1, "end_line": 1}, "snippet"),
            "dry_run_diff": ({"path": "pkg/util.py"}, "diff_preview"),
        }
        for tool, (arguments, mode) in wrappers.items():
            response = body(await client.call_tool(tool, arguments))
            assert response["ok"], response
            assert response["mode"] == mode
        assert body(await client.call_tool("get_snippet", {"path": "pkg/app.py",
                                                           "start_line": 1}))["text"] == "import os\n"


async def test_edit_and_write(make_server) -> None:
    server = make_server()
    async with connect(server) as client:
        written = body(await client.call_tool("write", {"path": "new.py", "content": "x = 1\n"}))
        assert written["ok"] and written["changes"][0]["status"] == "created"
        edited = body(await client.call_tool("edit", {"path": "new.py", "old_string": "x = 1",
                                                      "new_string": "x = 2"}))
        assert edited["ok"] and edited["changes"][0]["status"] == "modified"
        assert body(await client.call_tool("read", {"mode": "file", "target": "new.py"}))[
            "text"] == "x = 2\n"
        missing = body(await client.call_tool("edit", {"path": "new.py", "old_string": "y = 9",
                                                       "new_string": "y = 1"}))
        assert missing["error"]["code"] == ErrorCode.EDIT_NO_MATCH
    assert server.kernel.engine.files["new.py"] == "x = 2\n"


async def test_invalid_arguments_are_a_structured_tool_error(make_server) -> None:
    async with connect(make_server()) as client:
        result = await client.call_tool("read", {"mode": "file", "target": "pkg/app.py",
                                                 "start_line": 3})
        response = body(result)
        assert result.is_error is True
        assert response["error"]["code"] == ErrorCode.INVALID_ARGS
        assert response["error"]["message"] == (
            "start_line is only valid for mode='snippet'. Remove it or switch mode.")
        assert "stabilization" in response["meta"]
        missing = body(await client.call_tool("search", {}))
        assert missing["error"]["code"] == ErrorCode.INVALID_ARGS
        assert "query is required" in missing["error"]["message"]


async def test_unknown_tool_names_the_available_ones(make_server) -> None:
    async with connect(make_server()) as client:
        response = body(await client.call_tool("read_everything", {}))
    assert response["error"]["code"] == "UNKNOWN_TOOL"
    assert "read_everything" in response["error"]["message"]
    assert "search, read" in response["error"]["hint"]
    assert response["meta"]["stabilization"]["next_calls"][0]["tool"] == "search"


async def test_oversized_arguments_are_refused_before_the_kernel(make_server) -> None:
    server = make_server(max_request_bytes=1000)
    async with connect(server) as client:
        response = body(await client.call_tool("write", {"path": "big.txt",
                                                         "content": "x" * 5000}))
        assert response["error"]["code"] == "REQUEST_TOO_LARGE"
        assert "1000" in response["error"]["message"]
        assert body(await client.call_tool("write", {"path": "ok.txt", "content": "x"}))["ok"]
    assert "big.txt" not in server.kernel.engine.files


async def test_raising_plugin_tools_leave_the_connection_usable(make_server) -> None:
    async with connect(make_server()) as client:
        exploded = body(await client.call_tool("explode", {"message": "kaboom"}))
        assert exploded["error"]["code"] == ErrorCode.PLUGIN_ERROR
        assert "kaboom" in exploded["error"]["message"]
        cursed = body(await client.call_tool("read", {"mode": "file", "target": "boom.py"}))
        assert cursed["ok"] is True
        assert "PLUGIN_ERROR" in cursed["meta"]["stabilization"]["reason_codes"]
        assert any("raiser" in w for w in cursed["meta"]["stabilization"]["warnings"])
        after = body(await client.call_tool("read", {"mode": "file", "target": "README.md"}))
        assert after["ok"] and after["text"] == "# demo\n"


class FailingEngine(MemoryEngine):
    """An engine with a bug: reading ``crash.py`` raises something that is not a SariError."""

    def read(self, call: ReadCall) -> ReadResult:
        if call.target == "crash.py":
            raise OSError("disk on fire")
        return super().read(call)


async def test_engine_bug_becomes_internal_error_and_next_call_succeeds(make_server) -> None:
    server = make_server(FailingEngine(dict(FILES)))
    async with connect(server) as client:
        crashed = body(await client.call_tool("read", {"mode": "file", "target": "crash.py"}))
        assert crashed["error"]["code"] == "INTERNAL_ERROR"
        assert "OSError: disk on fire" in crashed["error"]["message"]
        assert "the connection is still usable" in crashed["error"]["hint"]
        assert body(await client.call_tool("read", {"mode": "file", "target": "README.md"}))["ok"]


async def test_each_connection_has_its_own_session_ended_on_close(make_server, plugin) -> None:
    server = make_server()
    keys: dict[str, str] = {}
    counts: dict[str, int] = {}

    async def work(label: str, searches: int) -> None:
        async with connect(server) as client:
            for _ in range(searches):
                response = body(await client.call_tool("search", {"query": "return"}))
            counts[label] = response["meta"]["stabilization"]["metrics_snapshot"]["search_count"]
            keys[label] = body(await client.call_tool("whoami", {}))["session_key"]

    async with anyio.create_task_group() as group:
        for label, searches in (("a", 1), ("b", 2), ("c", 3)):
            group.start_soon(work, label, searches)
    assert counts == {"a": 1, "b": 2, "c": 3}
    assert len(set(keys.values())) == 3
    assert all(":conn:" in key for key in keys.values())
    assert sorted(plugin.ended) == sorted(keys.values())
    assert server.kernel.sessions.keys() == []
    assert server.connections.opened == server.connections.closed == 3


async def test_a_session_the_client_names_shares_state_across_connections(make_server) -> None:
    server = make_server()
    for _ in range(2):
        async with connect(server) as client:
            response = body(await client.call_tool("search", {"query": "os"},
                                                   meta={"sari/session_id": "chat-1"}))
    assert response["meta"]["stabilization"]["metrics_snapshot"]["search_count"] == 2


async def test_a_session_id_argument_is_a_scope_not_a_session(make_server) -> None:
    """The model writes arguments: a fresh session_id in each call must not open a fresh
    session (nor share another connection's)."""
    server = make_server()
    async with connect(server) as client:
        for number in range(3):
            response = body(await client.call_tool("search", {"query": "os",
                                                              "session_id": f"s{number}"}))
    assert response["meta"]["stabilization"]["metrics_snapshot"]["search_count"] == 3
    async with connect(server) as other:
        response = body(await other.call_tool("search", {"query": "os", "session_id": "s0"}))
    assert response["meta"]["stabilization"]["metrics_snapshot"]["search_count"] == 1


class BlockingEngine(MemoryEngine):
    """Reading ``wait.py`` blocks its thread until ``release`` is set."""

    def __init__(self, files: dict[str, str]) -> None:
        super().__init__(files)
        self.release = threading.Event()

    def read(self, call: ReadCall) -> ReadResult:
        if call.target == "wait.py":
            if not self.release.wait(timeout=30):
                raise TimeoutError("never released")
            call = call.model_copy(update={"target": "README.md"})
        return super().read(call)


async def test_a_slow_call_does_not_stall_other_connections(make_server) -> None:
    engine = BlockingEngine(dict(FILES))
    server = make_server(engine)
    finished: list[str] = []

    async def slow() -> None:
        async with connect(server) as client:
            assert body(await client.call_tool("read", {"mode": "file", "target": "wait.py"}))["ok"]
            finished.append("slow")

    async def fast() -> None:
        async with connect(server) as client:
            assert body(await client.call_tool("search", {"query": "helper"}))["ok"]
            finished.append("fast")
            # Only reachable while the slow call still holds its worker thread.
            engine.release.set()

    with anyio.fail_after(20):  # a guard against a hang, not a timing assertion
        async with anyio.create_task_group() as group:
            group.start_soon(slow)
            group.start_soon(fast)
    assert finished == ["fast", "slow"]


@pytest.mark.parametrize("value", [{"p": Path("/x")}, {"s": {2, 1}}, {"o": object()}])
def test_values_outside_json_travel_as_the_same_json_in_text_and_structure(
        value: dict[str, Any]) -> None:
    from sari_core.server.results import to_call_result

    result = to_call_result({"ok": True, **value}, "json")
    wire = result.model_dump(mode="json", by_alias=True)
    assert json.loads(wire["content"][0]["text"]) == wire["structuredContent"]


@pytest.mark.parametrize("inline", [False, True])
async def test_inline_reads_run_on_the_loop_and_mutations_never_do(make_server, plugin,
                                                                  inline: bool) -> None:
    server = make_server(inline_reads=inline)
    async with connect(server) as client:
        assert body(await client.call_tool("read", {"mode": "file", "target": "README.md"}))["ok"]
        assert body(await client.call_tool("write", {"path": "x.txt", "content": "x"}))["ok"]
    loop_thread = threading.main_thread().name
    threads = dict(plugin.threads)
    assert (threads["read"] == loop_thread) is inline
    assert threads["write"] != loop_thread
