"""Who can reach the HTTP server: Host and Origin on every bind, a bearer token beyond loopback.

Each case runs the real ``sari serve --transport http`` and speaks to it with raw
HTTP requests (a browser page or another machine would) and with the official MCP
client.
"""

from __future__ import annotations

import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from served_http import Served, make_git_workspace, serve, server_env, start_fails

TOKEN_FILE = "http-token"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
    "clientInfo": {"name": "probe", "version": "0"}}}
BASE_HEADERS = {"Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_git_workspace(tmp_path / "ws")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    values = server_env(tmp_path, plugins="secretguard")
    return values


@pytest.fixture(scope="module")
def loopback(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One default-bind server for the header cases (they change nothing on it)."""
    tmp = tmp_path_factory.mktemp("loopback")
    (tmp / "home").mkdir()
    with serve(make_git_workspace(tmp / "ws"), server_env(tmp, plugins="secretguard"),
               tmp / "loopback.log") as served:
        yield served


def other_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def post(port: int, headers: dict[str, str], body: Any = None,
         address: str = "127.0.0.1") -> httpx2.Response:
    with httpx2.Client(timeout=30) as client:
        return client.post(f"http://{address}:{port}/mcp", json=body or INITIALIZE,
                           headers={**BASE_HEADERS, **headers})


REFUSED_ON_LOOPBACK = [
    ({"Host": "evil.example"}, 421),
    ({"Host": "evil.example:{port}"}, 421),
    ({"Host": "127.0.0.1:{other}"}, 421),
    ({"Host": "localhost"}, 421),
    ({"Origin": "null"}, 403),
    ({"Origin": "http://127.0.0.1:{other}"}, 403),
    ({"Origin": "http://localhost:{other}"}, 403),
    ({"Origin": "https://127.0.0.1:{port}.evil.example"}, 403),
    ({"Origin": "http://evil.example"}, 403),
]


@pytest.mark.parametrize(("headers", "status"), REFUSED_ON_LOOPBACK,
                         ids=[f"{next(iter(h))}={next(iter(h.values()))}"
                              for h, _ in REFUSED_ON_LOOPBACK])
def test_a_loopback_server_refuses_requests_that_do_not_address_it(
        loopback: Served, headers: dict[str, str], status: int) -> None:
    filled = {key: value.format(port=loopback.port, other=other_port())
              for key, value in headers.items()}
    response = post(loopback.port, filled)
    assert response.status_code == status, response.text
    assert "mcp-session-id" not in response.headers  # no session was opened


def test_a_loopback_server_serves_its_own_names_and_origin(loopback: Served) -> None:
    for headers in ({}, {"Host": f"localhost:{loopback.port}"},
                    {"Origin": f"http://127.0.0.1:{loopback.port}"},
                    {"Origin": f"http://localhost:{loopback.port}"}):
        response = post(loopback.port, headers)
        assert response.status_code == 200, (headers, response.text)
        assert response.json()["result"]["serverInfo"]["name"]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def _read_readme(url: str, token: str | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as mcp:
        result = await mcp.call_tool("read", {"mode": "file", "target": "README.md"})
    assert result.structured_content is not None
    return result.structured_content


async def test_a_bind_beyond_loopback_generates_a_token_prints_it_once_and_requires_it(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    state = Path(env["SARI_STATE_DIR"])
    with serve(workspace, env, tmp_path / "first.log", "--host", "0.0.0.0") as served:
        stored = state / TOKEN_FILE
        token = stored.read_text(encoding="utf-8").strip()
        assert len(token) >= 32
        assert _mode(stored) == 0o600 and _mode(stored.parent) == 0o700
        assert served.stderr().count(token) == 1  # printed once, at generation
        url = f"http://127.0.0.1:{served.port}/mcp"
        assert post(served.port, {}).status_code == 401
        assert post(served.port, {"Authorization": "Bearer wrong-token-of-good-length"}
                    ).status_code == 401
        assert post(served.port, {"Authorization": token}).status_code == 401  # no scheme
        refused = post(served.port, {})
        assert refused.headers["www-authenticate"].lower().startswith("bearer")
        assert token not in refused.text
        with pytest.raises(Exception):  # noqa: B017,PT011 - the client's own error type
            await _read_readme(url, None)
        answer = await _read_readme(url, token)
        assert answer["ok"] is True and "# Demo" in answer["text"]
    with serve(workspace, env, tmp_path / "second.log", "--host", "0.0.0.0") as served:
        assert token not in served.stderr()  # reused from the state folder, not shown again
        assert str(stored) in served.stderr()
        assert (await _read_readme(f"http://127.0.0.1:{served.port}/mcp", token))["ok"] is True


def test_with_a_token_host_and_origin_are_still_checked(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    token = "a-token-given-on-the-command-line"
    with serve(workspace, env, tmp_path / "given.log", "--host", "0.0.0.0",
               "--token", token) as served:
        auth = {"Authorization": f"Bearer {token}"}
        assert post(served.port, auth).status_code == 200
        assert post(served.port, {**auth, "Host": "evil.example"}).status_code == 421
        # The announced URL names the bind address; a client on this machine may use it.
        assert served.url.startswith("http://0.0.0.0:")
        assert post(served.port, {**auth, "Host": f"0.0.0.0:{served.port}"}).status_code == 200
        assert post(served.port, {**auth, "Origin": "null"}).status_code == 403
        assert post(served.port, {**auth, "Origin": f"http://127.0.0.1:{other_port()}"}
                    ).status_code == 403
        assert token not in served.stderr()
        assert not (Path(env["SARI_STATE_DIR"]) / TOKEN_FILE).exists()


def _session(port: int, token: str) -> dict[str, str]:
    """A handshaken MCP session over raw HTTP: the headers later requests carry."""
    auth = {"Authorization": f"Bearer {token}"}
    opened = post(port, auth)
    assert opened.status_code == 200
    headers = {**auth, "mcp-session-id": opened.headers["mcp-session-id"],
               "mcp-protocol-version": opened.json()["result"]["protocolVersion"]}
    done = post(port, headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert done.status_code in (200, 202)
    return headers


def test_a_request_without_the_right_token_has_no_side_effect(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    token = "token-from-the-environment-0123"
    with serve(workspace, {**env, "SARI_HTTP_TOKEN": token}, tmp_path / "env.log",
               "--host", "0.0.0.0") as served:
        headers = _session(served.port, token)
        write = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "write", "arguments": {"path": "planted.txt", "content": "x\n"}}}
        for bad in ({}, {"Authorization": "Bearer " + token[:-1]},
                    {"Authorization": "Basic " + token}):
            sent = {key: value for key, value in headers.items() if key != "Authorization"}
            response = post(served.port, {**sent, **bad}, write)
            assert response.status_code == 401
            assert not (workspace / "planted.txt").exists()
        response = post(served.port, headers, write)
        assert response.status_code == 200 and response.json()["result"]["isError"] is False
        assert (workspace / "planted.txt").read_text() == "x\n"


def test_a_short_token_stops_the_server_before_it_listens(
        workspace: Path, env: dict[str, str]) -> None:
    finished = start_fails(workspace, env, "--host", "0.0.0.0", "--token", "short")
    assert finished.returncode == 2
    assert "at least 16 characters" in finished.stderr
    assert "serving MCP" not in finished.stderr


def test_an_unwritable_state_folder_stops_a_server_that_needs_a_token(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    finished = start_fails(workspace, {**env, "SARI_STATE_DIR": str(blocker / "state")},
                           "--host", "0.0.0.0")
    assert finished.returncode != 0
    assert "serving MCP" not in finished.stderr


def test_the_rest_of_127_0_0_0_8_counts_as_loopback(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    try:
        with socket.socket() as probe:
            probe.bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("127.0.0.2 cannot be bound on this machine")
    with serve(workspace, env, tmp_path / "lo2.log", "--host", "127.0.0.2") as served:
        assert post(served.port, {}, address="127.0.0.2").status_code == 200
        assert post(served.port, {"Host": "evil.example"}, address="127.0.0.2"
                    ).status_code == 421
        assert post(served.port, {"Origin": "null"}, address="127.0.0.2").status_code == 403
        assert not (Path(env["SARI_STATE_DIR"]) / TOKEN_FILE).exists()


def test_an_ipv6_wildcard_bind_requires_a_token(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("IPv6 loopback is not available on this machine")
    with serve(workspace, env, tmp_path / "v6.log", "--host", "::") as served:
        token = (Path(env["SARI_STATE_DIR"]) / TOKEN_FILE).read_text().strip()
        assert post(served.port, {}, address="[::1]").status_code == 401
        assert post(served.port, {"Authorization": f"Bearer {token}"}, address="[::1]"
                    ).status_code == 200
