"""Over real in-process MCP connections: a ref issued on one connection is refused on another
(in strict mode, where a read no search of its own session backs is refused)."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from sari_core.rendering import render
from sari_core.server import SariServer
from sari_refgate import RefgatePlugin


def _body(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    assert result.content[0].text == render(result.structured_content)  # the model's text
    assert result.is_error is (not result.structured_content["ok"])
    return result.structured_content


@pytest.fixture
def server(make_kernel) -> SariServer:
    return SariServer(make_kernel(RefgatePlugin(), settings={"refgate": {"strict": True}}))


async def test_a_ref_from_another_connection_is_refused(server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as first, \
            Client(server.lowlevel, mode="legacy") as second:
        found = _body(await first.call_tool("search", {"query": "load_config"}))
        match = found["matches"][0]
        read = {"mode": "file", "target": match["path"], "candidate_id": match["candidate_id"]}
        _body(await second.call_tool("search", {"query": "serve"}))
        refused = _body(await second.call_tool("read", read))
        assert refused["ok"] is False
        assert refused["error"]["code"] == "CANDIDATE_REF_REQUIRED"
        assert "No search in this session returned app/config.py" in refused["error"]["message"]
        # Its next_calls are served on the second connection as they are.
        for call in refused["meta"]["stabilization"]["next_calls"]:
            assert _body(await second.call_tool(call["tool"], call["arguments"]))["ok"]
        assert _body(await first.call_tool("read", read))["ok"]


async def test_the_same_search_on_another_connection_issues_the_same_refs(
        server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as first, \
            Client(server.lowlevel, mode="legacy") as second:
        mine = _body(await first.call_tool("search", {"query": "load_config"}))
        theirs = _body(await second.call_tool("search", {"query": "load_config"}))
        assert [m["candidate_id"] for m in mine["matches"]] == \
            [m["candidate_id"] for m in theirs["matches"]]
        match = theirs["matches"][0]
        read = {"mode": "file", "target": match["path"], "candidate_id": match["candidate_id"]}
        assert _body(await second.call_tool("read", read))["ok"]


async def test_a_named_session_shares_its_refs_across_connections(server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as first, \
            Client(server.lowlevel, mode="legacy") as second:
        found = _body(await first.call_tool("search", {"query": "load_config"},
                                            meta={"sari/session_id": "agent"}))
        match = found["matches"][0]
        read = {"mode": "file", "target": match["path"], "candidate_id": match["candidate_id"]}
        assert _body(await second.call_tool("read", read,
                                            meta={"sari/session_id": "agent"}))["ok"]
        refused = _body(await second.call_tool("read", read,
                                               meta={"sari/session_id": "other"}))
        assert refused["error"]["code"] == "SEARCH_FIRST_REQUIRED"
