"""A slow call holds a worker, never the event loop: ``ping`` and other clients are answered
meanwhile, and a call beyond the pool's queue is answered BUSY at once with a retry hint.

The slow call is a search the engine holds until the test releases it, so nothing
here depends on timing: the bounds are hang guards.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from sari_core.kernel import Kernel
from sari_core.models import ReadCall, ReadResult, SearchCall, SearchResult
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_fixture_files import FILES  # noqa: E402

HANG_GUARD_SECONDS = 30


class HeldSearch(MemoryEngine):
    """A search for ``hold`` (or an outline of ``hold.py``) waits until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__(dict(FILES))
        self.release = threading.Event()
        self.held = threading.Event()

    def read(self, call: ReadCall) -> ReadResult:
        if call.mode == "outline" and call.target == "hold.py":
            self.held.set()
            self.release.wait(HANG_GUARD_SECONDS)
            call = call.model_copy(update={"mode": "file", "target": "README.md"})
        return super().read(call)

    def search(self, call: SearchCall) -> SearchResult:
        if call.query == "hold":
            self.held.set()
            self.release.wait(HANG_GUARD_SECONDS)
        return super().search(call)


def _server(engine: HeldSearch, **options: Any) -> SariServer:
    kernel = Kernel(engine, plugins=[], load_entry_points=False, analytics_sinks=[])
    return SariServer(kernel, **options)


def _body(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


async def _held(engine: HeldSearch) -> None:
    while not engine.held.is_set():
        await anyio.sleep(0.01)


async def test_a_search_on_a_stdio_server_leaves_ping_answered() -> None:
    engine = HeldSearch()
    server = _server(engine, inline_reads=True)  # as `sari serve` over stdio
    order: list[str] = []
    async with Client(server.lowlevel, mode="legacy") as client:

        async def search() -> None:
            assert _body(await client.call_tool("search", {"query": "hold"}))["ok"]
            order.append("search")

        with anyio.fail_after(HANG_GUARD_SECONDS):
            async with anyio.create_task_group() as group:
                group.start_soon(search)
                await _held(engine)
                await client.send_ping()
                order.append("ping")
                engine.release.set()
    assert order == ["ping", "search"]


async def test_an_outline_on_a_stdio_server_leaves_ping_answered() -> None:
    engine = HeldSearch()
    server = _server(engine, inline_reads=True)
    order: list[str] = []
    async with Client(server.lowlevel, mode="legacy") as client:

        async def outline() -> None:
            assert _body(await client.call_tool("read", {"mode": "outline",
                                                         "target": "hold.py"}))["ok"]
            order.append("outline")

        with anyio.fail_after(HANG_GUARD_SECONDS):
            async with anyio.create_task_group() as group:
                group.start_soon(outline)
                await _held(engine)
                await client.send_ping()
                order.append("ping")
                engine.release.set()
    assert order == ["ping", "outline"]


async def test_a_call_beyond_the_queue_is_busy_at_once_and_served_later() -> None:
    engine = HeldSearch()
    server = _server(engine, worker_threads=1, worker_queue=0)
    async with Client(server.lowlevel, mode="legacy") as first, \
            Client(server.lowlevel, mode="legacy") as second:

        async def hold() -> None:
            assert _body(await first.call_tool("search", {"query": "hold"}))["ok"]

        with anyio.fail_after(HANG_GUARD_SECONDS):
            async with anyio.create_task_group() as group:
                group.start_soon(hold)
                await _held(engine)
                busy = _body(await second.call_tool("search", {"query": "helper"}))
                await second.send_ping()
                engine.release.set()
            again = _body(await second.call_tool("search", {"query": "helper"}))
    assert busy["ok"] is False
    assert busy["error"]["code"] == "BUSY"
    assert busy["error"]["details"]["retry_after_seconds"] > 0
    assert "again" in busy["error"]["hint"]
    assert again["ok"] is True


async def test_one_connection_cannot_take_every_worker() -> None:
    engine = HeldSearch()
    server = _server(engine, worker_threads=2)  # one worker per connection at most
    async with Client(server.lowlevel, mode="legacy") as greedy, \
            Client(server.lowlevel, mode="legacy") as other:

        async def hold() -> None:
            assert _body(await greedy.call_tool("search", {"query": "hold"}))["ok"]

        with anyio.fail_after(HANG_GUARD_SECONDS):
            async with anyio.create_task_group() as group:
                group.start_soon(hold)
                await _held(engine)
                group.start_soon(hold)  # waits for greedy's own worker, not the other one
                await anyio.sleep(0.2)
                served = _body(await other.call_tool("search", {"query": "helper"}))
                engine.release.set()
    assert served["ok"] is True
