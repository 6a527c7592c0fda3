"""Secretguard over a real MCP connection: the SDK's client against Sari's server, in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from secret_samples import GITHUB_TOKEN, key_body, source_with_key

from sari_core import Kernel
from sari_core.rendering import render
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine
from sari_secretguard import SecretguardPlugin

FILES = {
    "src/deploy.py": source_with_key(),
    "src/client.py": f"GITHUB = '{GITHUB_TOKEN}'  # deploy bot\n",
    ".env": "DATABASE_URL=postgres://app:hunter2@db/app\n",
}


@pytest.fixture(params=["memory-engine", "workspace-engine"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SariServer]:
    """The server over the in-memory engine, and over the real engine on files on disk."""
    if request.param == "memory-engine":
        kernel = Kernel(MemoryEngine(FILES), plugins=[SecretguardPlugin()],
                        load_entry_points=False, analytics_sinks=[])
    else:
        for relative, text in FILES.items():
            (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / relative).write_text(text)
        kernel = Kernel(roots=[tmp_path], plugins=[SecretguardPlugin()],
                        load_entry_points=False, analytics_sinks=[])
    with kernel:
        yield SariServer(kernel)


def body(result: types.CallToolResult) -> dict[str, Any]:
    """The response object, after checking that the text block carries exactly the same JSON."""
    assert result.structured_content is not None
    assert result.content[0].text == render(result.structured_content)  # the model's text
    assert result.is_error is (not result.structured_content["ok"])
    return result.structured_content


def transcript(result: types.CallToolResult) -> str:
    """Everything the model would see of a tool result."""
    return json.dumps(result.model_dump(mode="json"))


async def test_a_private_key_in_a_source_file_never_crosses_the_connection(
        server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("read", {"mode": "file", "target": "src/deploy.py"})
        wrapped = await client.call_tool("read_file", {"path": "src/deploy.py"})
    for outcome in (result, wrapped):
        response = body(outcome)
        assert response["ok"] is True
        assert "[REDACTED:private_key]" in response["text"]
        assert response["meta"]["stabilization"]["reason_codes"] == ["SECRET_REDACTED"]
        assert "def connect(host):" in response["text"]
        seen = transcript(outcome)
        assert "PRIVATE KEY" not in seen
        assert not any(line in seen for line in key_body())


async def test_a_secret_file_is_refused_as_a_tool_error(server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("read", {"mode": "file", "target": ".env"})
    response = body(result)
    assert result.is_error is True
    assert response["error"]["code"] == "SECRET_FILE_BLOCKED"
    assert response["meta"]["stabilization"]["next_calls"] == [
        {"tool": "search", "arguments": {"query": ".env"}}]
    assert "hunter2" not in transcript(result)


async def test_tokens_are_redacted_from_search_snippets(server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("search", {"query": "deploy bot"})
    matches = body(result)["matches"]
    assert [match["path"] for match in matches] == ["src/client.py"]
    assert "[REDACTED:github_token]" in matches[0]["snippet"]
    assert GITHUB_TOKEN not in transcript(result)


async def test_a_search_that_hits_a_secret_file_shows_no_content_of_it(server: SariServer) -> None:
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("search", {"query": "DATABASE_URL"})
    assert "hunter2" not in transcript(result)
    assert body(result)["matches"] == [] and body(result)["total"] == 0  # not even counted
    assert body(result)["meta"]["stabilization"]["reason_codes"] == ["SECRET_REDACTED"]
