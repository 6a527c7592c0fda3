"""Streamable-HTTP sessions a client never closes are bounded: by idle time and by count."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

from e2e_harness import http_server, server_env

HEADERS = {"Accept": "application/json, text/event-stream",
           "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "one-shot", "version": "1"}}}


def post(url: str, message: dict[str, object], session: str | None = None
         ) -> tuple[int, str | None]:
    """The HTTP status and the session id header of one JSON-RPC POST."""
    headers = dict(HEADERS)
    if session is not None:
        headers.update({"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status, response.headers.get("mcp-session-id")
    except urllib.error.HTTPError as error:
        return error.code, None


def open_session(url: str) -> str:
    """What a health check or one-shot CLI does: initialize, one call, never DELETE."""
    status, session = post(url, INITIALIZE)
    assert status == 200 and session
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert call(url, session) == 200
    return session


def call(url: str, session: str) -> int:
    return post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "search", "arguments": {"query": "handle_request"}}},
                session)[0]


def closed_connections(log: Path) -> int:
    return len(re.findall(r"connection \S+ closed", log.read_text(encoding="utf-8")))


def until(condition, bound: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def test_sessions_beyond_the_cap_evict_the_oldest_idle_ones(workspace: Path,
                                                            tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    env = {**server_env(tmp_path), "SARI_HTTP_MAX_SESSIONS": "4"}
    log = tmp_path / "http.log"
    with http_server(workspace, env, log) as (url, _):
        sessions = [open_session(url) for _ in range(12)]
        # The eight oldest are gone (their policy sessions ended), the four newest serve.
        assert [call(url, s) for s in sessions[:8]] == [404] * 8
        assert [call(url, s) for s in sessions[8:]] == [200] * 4
        until(lambda: closed_connections(log) == 8)


def test_an_idle_session_is_closed_and_its_policy_session_ended(workspace: Path,
                                                                tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    env = {**server_env(tmp_path), "SARI_HTTP_SESSION_IDLE_SECONDS": "1"}
    log = tmp_path / "http.log"
    with http_server(workspace, env, log) as (url, _):
        session = open_session(url)
        until(lambda: closed_connections(log) == 1)
        assert call(url, session) == 404
