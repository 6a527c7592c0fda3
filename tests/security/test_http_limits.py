"""HTTP clients that hold the server's resources: slow senders are disconnected, and one client
opening sessions by the dozen cannot push out another client's session.

The server is ``sari serve --transport http`` as a subprocess; the clients are raw sockets
and ``urllib``. The time bounds are hang guards with wide margins.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from served_http import make_git_workspace, serve, server_env

SLOW_SOCKETS = 300
READ_SECONDS = 2  # the server's request deadline in these tests
CLOSE_BOUND_SECONDS = 60
HEADERS = {"Accept": "application/json, text/event-stream",
           "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "limits", "version": "1"}}}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {**server_env(tmp_path), "SARI_HTTP_READ_SECONDS": str(READ_SECONDS)}


def _post(url: str, message: dict[str, object], agent: str, session: str | None = None
          ) -> tuple[int, str | None]:
    headers = {**HEADERS, "User-Agent": agent}
    if session is not None:
        headers.update({"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            return response.status, response.headers.get("mcp-session-id")
    except urllib.error.HTTPError as error:
        return error.code, None


def _open_session(url: str, agent: str) -> str:
    status, session = _post(url, INITIALIZE, agent)
    assert status == 200 and session
    _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, agent, session)
    return session


def _call(url: str, agent: str, session: str) -> int:
    return _post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "search", "arguments": {"query": "helper"}}},
                 agent, session)[0]


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_sockets_trickling_a_request_are_closed_and_others_still_served(
        tmp_path: Path, env: dict[str, str]) -> None:
    workspace = make_git_workspace(tmp_path / "ws")
    with serve(workspace, env, tmp_path / "http.log") as served:
        slow: list[socket.socket] = []
        try:
            for number in range(SLOW_SOCKETS):
                sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
                # half the sockets send a header line and stop, half send nothing at all
                if number % 2:
                    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                sock.setblocking(False)
                slow.append(sock)
            deadline = time.monotonic() + CLOSE_BOUND_SECONDS
            open_ones = list(slow)
            while open_ones and time.monotonic() < deadline:
                for sock in open_ones:
                    with contextlib.suppress(OSError):
                        sock.send(b"a")  # one more byte now and then: the trickle
                time.sleep(0.5)
                open_ones = [sock for sock in open_ones if not _closed_by_server(sock)]
            assert not open_ones, f"{len(open_ones)} of {SLOW_SOCKETS} slow sockets still open"
            assert _call(served.url, "editor", _open_session(served.url, "editor")) == 200
        finally:
            for sock in slow:
                sock.close()


def test_a_client_opening_many_sessions_evicts_only_its_own(
        tmp_path: Path, env: dict[str, str]) -> None:
    workspace = make_git_workspace(tmp_path / "ws")
    with serve(workspace, env, tmp_path / "http.log") as served:
        editor = _open_session(served.url, "editor/1.0")
        assert _call(served.url, "editor/1.0", editor) == 200
        greedy = [_open_session(served.url, "greedy/1.0") for _ in range(70)]
        assert _call(served.url, "editor/1.0", editor) == 200  # still there
        assert _call(served.url, "greedy/1.0", greedy[-1]) == 200  # its newest serve
        assert _call(served.url, "greedy/1.0", greedy[0]) == 404  # its oldest went


def test_a_client_changing_its_user_agent_still_evicts_no_other_clients_session(
        tmp_path: Path, env: dict[str, str]) -> None:
    """A client names its own User-Agent: with a new one per session it is as many clients,
    and at the cap in all its new sessions are refused instead of taking the editor's."""
    workspace = make_git_workspace(tmp_path / "ws")
    capped = {**env, "SARI_HTTP_MAX_SESSIONS": "8"}
    with serve(workspace, capped, tmp_path / "http.log") as served:
        editor = _open_session(served.url, "editor/1.0")
        opened = [_post(served.url, INITIALIZE, f"greedy/{number}")[0] for number in range(12)]
        assert opened == [200] * 7 + [503] * 5
        assert _call(served.url, "editor/1.0", editor) == 200  # still there
