"""Over MCP: the client's ``_meta.traceparent`` is continued, and the MCP attributes are set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from opentelemetry.propagate import inject
from opentelemetry.trace import set_span_in_context
from otel_policy import FirstReadGate
from otel_telemetry import Telemetry

from sari_core.kernel import Kernel
from sari_core.server import SariServer


@pytest.fixture
def server(workspace: Path, telemetry: Telemetry) -> Iterator[SariServer]:
    with Kernel(roots=[workspace], plugins=[telemetry.plugin, FirstReadGate()],
                load_entry_points=False, analytics_sinks=[]) as kernel:
        kernel.engine.ensure_index(progress=False)
        yield SariServer(kernel)


async def test_the_clients_trace_is_continued(server: SariServer, telemetry: Telemetry) -> None:
    agent = telemetry.tracer_provider.get_tracer("agent")
    turn = agent.start_span("agent turn")
    carrier: dict[str, str] = {}
    inject(carrier, context=set_span_in_context(turn))
    assert "traceparent" in carrier
    async with Client(server.lowlevel, mode="legacy") as client:
        refused = await client.call_tool("read", {"mode": "file", "target": "src/app.py"},
                                         meta=carrier)
        served = await client.call_tool("read", {"mode": "file", "target": "src/app.py"},
                                        meta=carrier)
    turn.end()
    assert refused.is_error is True and served.is_error is False
    spans = telemetry.finished("tools/call read")
    assert len(spans) == 2
    for span in spans:
        assert span.context.trace_id == turn.get_span_context().trace_id
        assert span.parent is not None and span.parent.is_remote
        assert span.parent.span_id == turn.get_span_context().span_id
        assert span.attributes["mcp.method.name"] == "tools/call"
        assert span.attributes["mcp.session.id"]
        assert span.attributes["jsonrpc.request.id"]
    assert spans[0].attributes["jsonrpc.request.id"] != spans[1].attributes["jsonrpc.request.id"]
    assert spans[0].attributes["mcp.session.id"] == spans[1].attributes["mcp.session.id"]


async def test_without_meta_each_call_starts_a_trace(server: SariServer,
                                                     telemetry: Telemetry) -> None:
    async with Client(server.lowlevel, mode="legacy") as client:
        await client.call_tool("search", {"query": "respond"})
        await client.call_tool("search", {"query": "handler"})
    first, second = telemetry.finished("tools/call search")
    assert first.parent is None and second.parent is None
    assert first.context.trace_id != second.context.trace_id


async def test_a_malformed_traceparent_is_ignored(server: SariServer,
                                                  telemetry: Telemetry) -> None:
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("search", {"query": "respond"},
                                        meta={"traceparent": "00-not-a-trace-01"})
    assert result.is_error is False
    (span,) = telemetry.finished("tools/call search")
    assert span.parent is None
