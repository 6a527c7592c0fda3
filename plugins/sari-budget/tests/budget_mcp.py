"""The budget's refusals as an MCP client sees them (in-process server and real transports)."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from budget_workspace import READS
from mcp import Client

from sari_core.rendering import render


def body(result: types.CallToolResult) -> dict[str, Any]:
    """The response of a tool call, checked to be the same in text and structured content."""
    assert result.structured_content is not None
    assert result.content[0].text == render(result.structured_content)  # the model's text
    assert result.is_error is (not result.structured_content["ok"])
    return result.structured_content


def assert_budget_refusal(response: dict[str, Any]) -> None:
    assert response["ok"] is False
    assert response["error"]["code"] == "BUDGET_EXCEEDED"
    assert response["error"]["message"].startswith(
        "The read budget of this session is spent: ")
    stabilization = response["meta"]["stabilization"]
    assert "BUDGET_HARD_LIMIT" in stabilization["reason_codes"]
    assert stabilization["next_calls"][0]["tool"] == "search"


async def spend_and_refuse(client: Client) -> None:
    """25 reads served through every read entrypoint in turn; then each one is refused."""
    names = sorted(READS)
    for number in range(25):
        name = names[number % len(names)]
        response = body(await client.call_tool(name, READS[name]))
        assert response["ok"], response
    for name in ["read", *[n for n in names if n != "read"]]:
        result = await client.call_tool(name, READS[name])
        assert result.is_error is True
        assert_budget_refusal(body(result))
