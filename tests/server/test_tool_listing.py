"""The tool listing as a client receives it, with every installed plugin loaded: each input
property says in one line what it takes, and the whole listing stays small (it is sent to
the model on every turn)."""

from __future__ import annotations

import json

from test_server_inprocess import connect

from sari_core.kernel import Kernel
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine

LISTING_TOKEN_LIMIT = 1200  # characters / 4 of the tools/list result's tools


async def _listing() -> list[dict]:
    kernel = Kernel(MemoryEngine({"a.py": "x = 1\n"}), analytics_sinks=[])  # every plugin
    try:
        async with connect(SariServer(kernel)) as client:
            tools = (await client.list_tools()).tools
    finally:
        kernel.close()
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def _properties(schema: dict, where: str) -> list[tuple[str, dict]]:
    found = []
    for name, prop in schema.get("properties", {}).items():
        found.append((f"{where}.{name}", prop))
        found += _properties(prop, f"{where}.{name}")
    return found


async def test_every_input_property_of_every_listed_tool_has_a_one_line_description() -> None:
    tools = await _listing()
    assert {"search", "read", "edit", "write"} <= {tool["name"] for tool in tools}
    for tool in tools:
        for where, prop in _properties(tool["inputSchema"], tool["name"]):
            text = prop.get("description", "")
            assert text.strip() and "\n" not in text and len(text) <= 100, (where, text)


async def test_read_says_offset_is_the_first_line_and_limit_the_line_count() -> None:
    read = next(tool for tool in await _listing() if tool["name"] == "read")
    properties = read["inputSchema"]["properties"]
    assert "first line" in properties["offset"]["description"].lower()
    assert "from 1" in properties["offset"]["description"]
    assert "number of lines" in properties["limit"]["description"].lower()


async def test_the_whole_listing_stays_within_its_token_limit() -> None:
    tools = await _listing()
    size = len(json.dumps(tools, separators=(",", ":"))) // 4
    assert size <= LISTING_TOKEN_LIMIT, f"{size} tokens listed for {[t['name'] for t in tools]}"
