"""``context_query`` keeps each client's records to itself, and redacts what it returns.

Two official MCP clients share one real ``sari serve --transport http`` (secretguard and
persistence loaded from their entry points): what one wrote must not come back to
the other, whatever scope it asks for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from served_http import make_git_workspace, serve, server_env

pytest.importorskip("sari_secretguard")
pytest.importorskip("sari_persistence")

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
MARKER = "pelican-migration-note"


async def call(url: str, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """One call on a connection of its own, in the session its ``session_id`` names (the
    client program names it in ``_meta``: an argument would only be a scope)."""
    arguments = dict(arguments)
    session = arguments.pop("session_id", None)
    meta = {"sari/session_id": session} if session else None
    async with Client(url, read_timeout_seconds=60) as client:
        result = await client.call_tool(tool, arguments, meta=meta)
    assert result.structured_content is not None
    return result.structured_content, json.dumps(result.model_dump(mode="json"))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return server_env(tmp_path, plugins="secretguard,persistence")


async def test_another_client_sees_none_of_my_records(
        tmp_path: Path, env: dict[str, str]) -> None:
    workspace = make_git_workspace(tmp_path / "ws")
    with serve(workspace, env, tmp_path / "server.log") as served:
        wrote, _ = await call(served.url, "write", {
            "path": "notes.txt", "content": f"{MARKER}\nGITHUB_TOKEN = '{TOKEN}'\n",
            "session_id": "alice"})
        assert wrote["ok"] is True
        for arguments in ({"scope": "workspace"}, {"scope": "auto"}, {"text": MARKER},
                          {"scope": "workspace", "text": MARKER},
                          {"chat_session_id": "alice"}):
            response, seen = await call(served.url, "context_query",
                                        {**arguments, "session_id": "bob"})
            assert response["ok"] is True, response
            assert TOKEN not in seen, arguments
            # Only bob's own context_query calls come back (their arguments name the marker).
            assert {item["tool"] for item in response["executions"]} <= {"context_query"}
            assert all(item["session_id"] == "bob" for item in response["executions"])
            assert response["frames"] == []
        mine, seen = await call(served.url, "context_query", {
            "scope": "workspace", "text": MARKER, "session_id": "alice"})
        assert [item["tool"] for item in mine["executions"]] == ["write"]
        assert MARKER in seen  # the caller's own record comes back...
        assert TOKEN not in seen  # ...redacted


async def test_other_sessions_when_the_setting_allows_them_still_redacted(
        tmp_path: Path, env: dict[str, str]) -> None:
    workspace = make_git_workspace(tmp_path / "ws")
    allowed = {**env, "SARI_PERSISTENCE__CONTEXT_QUERY_OTHER_SESSIONS": "true"}
    with serve(workspace, allowed, tmp_path / "server.log") as served:
        await call(served.url, "write", {
            "path": "notes.txt", "content": f"{MARKER}\nGITHUB_TOKEN = '{TOKEN}'\n",
            "session_id": "alice"})
        response, seen = await call(served.url, "context_query", {
            "scope": "workspace", "text": MARKER, "session_id": "bob"})
        assert [item["session_id"] for item in response["executions"]] == ["alice"]
        assert MARKER in seen and TOKEN not in seen
        assert "[REDACTED:github_token]" in seen
