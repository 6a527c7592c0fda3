"""Transport details that decide latency: the HTTP socket, the stdio pipes."""

from __future__ import annotations

import asyncio
import socket

from sari_core.server.transports import bind_socket, url_of


async def test_http_connections_get_tcp_nodelay() -> None:
    """Without TCP_NODELAY every response waits for the client's delayed ACK (~40 ms)."""
    sock = bind_socket("127.0.0.1", 0)
    assert url_of(sock).startswith("http://127.0.0.1:") and url_of(sock).endswith("/mcp")
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server_side = writer.get_extra_info("socket")
        accepted.set_result(server_side.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(on_connect, sock=sock)
    async with server:
        host, port = sock.getsockname()[:2]
        _, writer = await asyncio.open_connection(host, port)
        assert await asyncio.wait_for(accepted, 10) != 0
        writer.close()
