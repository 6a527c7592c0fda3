"""An idle keep-alive connection outlives the HTTP clients' own idle expiry.

httpx (and so the MCP SDK's client) keeps an idle connection for 5 s and then reuses it.
A server that closed idle connections at the same 5 s raced it: a request sent on the
connection as the server closed it got "Server disconnected without sending a response".
The server closes an idle connection only at its request deadline (10 s by default).
"""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path

from served_http import make_git_workspace, serve, server_env

CLIENT_IDLE_EXPIRY_SECONDS = 5.0  # httpx's keepalive_expiry default
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "keep-alive", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream",
           "Content-Type": "application/json"}


def _initialize(connection: http.client.HTTPConnection) -> int:
    connection.request("POST", "/mcp", body=json.dumps(INITIALIZE), headers=HEADERS)
    response = connection.getresponse()
    response.read()
    return response.status


def test_a_connection_idle_as_long_as_a_clients_expiry_is_still_served(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    workspace = make_git_workspace(tmp_path / "ws")
    with serve(workspace, server_env(tmp_path), tmp_path / "http.log") as served:
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
        try:
            assert _initialize(connection) == 200
            first = connection.sock
            time.sleep(CLIENT_IDLE_EXPIRY_SECONDS + 0.5)
            # the same socket (http.client reconnects only when it knows it was closed):
            # closed by the server, this raises RemoteDisconnected
            assert _initialize(connection) == 200
            assert connection.sock is first
        finally:
            connection.close()
