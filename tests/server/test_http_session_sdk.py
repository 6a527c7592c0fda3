"""The HTTP session bounds read the mcp SDK's session manager internals (it offers no
public way to admit or end a session): a release they were not written for, or one that
moved those internals, is said in the log, and the server still serves."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from sari_core.server import http_sessions


def manager() -> StreamableHTTPSessionManager:
    return StreamableHTTPSessionManager(app=Server("bounds"))


def test_the_installed_sdk_is_one_the_bounds_were_written_for(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger=http_sessions.__name__):
        assert http_sessions.sdk_checked(manager())
    assert caplog.text == "", version("mcp")


def test_another_sdk_release_is_said_in_the_log(monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(http_sessions, "MCP_WRITTEN_FOR", ((1, 0),))
    with caplog.at_level("WARNING", logger=http_sessions.__name__):
        assert http_sessions.sdk_checked(manager())
    assert f"mcp {version('mcp')} found" in caplog.text and "written for 1.0" in caplog.text


def test_an_sdk_without_the_internals_keeps_its_own_cap_and_says_so(
        caplog: pytest.LogCaptureFixture) -> None:
    moved = manager()
    del moved._server_instances  # as a release that renamed its session table
    admit = moved._admit_session
    with caplog.at_level("WARNING", logger=http_sessions.__name__):
        http_sessions.bound_sessions(moved, cap=5, per_client=2)
    assert "lacks _server_instances" in caplog.text and "no cap evicts" in caplog.text
    assert moved.max_sessions == 5 and moved._admit_session == admit  # left as the SDK made it
