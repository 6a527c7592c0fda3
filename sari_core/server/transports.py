"""Running a :class:`~sari_core.server.app.SariServer` over stdio or streamable HTTP."""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from sari_core.server.opening import HandshakeOpening
from sari_core.server.stdio_pipes import DEFAULT_LINE_LIMIT, serve_streams

if TYPE_CHECKING:
    from sari_core.server.app import SariServer

log = logging.getLogger(__name__)

HTTP_PATH = "/mcp"
# Bodies up to this multiple of the argument limit reach the server, which then refuses
# oversized arguments with a structured REQUEST_TOO_LARGE; only beyond it does the HTTP
# layer answer 413 without reading the body.
_TRANSPORT_LIMIT_FACTOR = 4


async def serve_stdio(server: SariServer) -> None:
    """Serve one client on this process's stdin/stdout until it disconnects.

    File descriptors 0 and 1 are moved aside while serving, so even a stray ``print``
    in a plugin lands on stderr instead of corrupting the protocol.
    """
    lowlevel = server.lowlevel
    limit = max(DEFAULT_LINE_LIMIT, _TRANSPORT_LIMIT_FACTOR * server.max_request_bytes)
    async with serve_streams(limit) as (read_stream, write_stream):
        if server.handshake_required:
            # The SDK would fix the connection's era by a server/discover probe; answered
            # here, the client's fallback initialize opens the handshake era instead.
            read_stream = HandshakeOpening(read_stream, write_stream)
        # The SDK only iterates the read stream and closes it: HandshakeOpening's duck type
        # suffices where its signature names the memory stream.
        await lowlevel.run(read_stream,  # pyright: ignore[reportArgumentType]
                           write_stream, lowlevel.create_initialization_options())


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind and listen now, so the URL can be announced before the server loop starts.

    The socket is made the way asyncio makes its own (protocol ``IPPROTO_TCP``):
    asyncio only sets ``TCP_NODELAY`` on connections whose socket says TCP, and
    without it every response waits ~40 ms for the client's delayed ACK.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP,
        flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{HTTP_PATH}"


async def serve_http(
    server: SariServer,
    sock: socket.socket,
    *,
    on_ready: Callable[[str], None] | None = None,
    token: str | None = None,
    allowed_names: frozenset[str] = frozenset(),
) -> None:
    """Serve many clients over streamable HTTP on an already bound socket.

    Each HTTP session (``Mcp-Session-Id``) is one MCP connection with its own
    connection id. Every request passes :class:`~sari_core.server.http_guard.HttpGuard`
    first (Host, Origin, and ``token`` when given); ``allowed_names`` are host names
    accepted besides the connection's own address.
    """
    # The HTTP stack loads here: a stdio server (most start-ups, timed to initialize)
    # never needs it.
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from sari_core.native.serving import HookRoutes
    from sari_core.server import http_read_timeout, http_sessions
    from sari_core.server.http_guard import HostRule, HttpGuard
    from sari_core.server.http_read_timeout import protocol_with_deadline

    port = sock.getsockname()[1]
    server.require_handshake()
    app = server.lowlevel.streamable_http_app(
        streamable_http_path=HTTP_PATH,
        # The guard below checks Host and Origin on every bind, stricter than the SDK's
        # loopback defaults (which accept any port), so the SDK's own check is off.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=_TRANSPORT_LIMIT_FACTOR * server.max_request_bytes,
        session_idle_timeout=http_sessions.idle_seconds(),
        # Sari sends nothing to a client while a call runs (no progress, no requests), so
        # a call's answer can be one JSON body instead of an SSE stream: half the server
        # CPU per call. The standalone GET stream is still offered.
        json_response=True,
    )
    http_sessions.bound_sessions(server.lowlevel.session_manager, http_sessions.max_sessions())
    # Client hooks (http hooks, the thin command hook) behind the same guard.
    guarded = HttpGuard(HookRoutes(app, server), HostRule(port, allowed_names), token)
    deadline = http_read_timeout.read_seconds()
    config = uvicorn.Config(guarded, log_config=None, access_log=False, lifespan="on",
                            timeout_graceful_shutdown=5,
                            # An idle connection is closed by the request deadline, not by
                            # uvicorn's 5 s: httpx (the MCP SDK's client) keeps one idle for
                            # 5 s too, and a request it sent as the server closed the
                            # connection was lost ("Server disconnected").
                            timeout_keep_alive=max(1, math.ceil(deadline)),
                            # a client trickling a request is disconnected (see the module)
                            http=protocol_with_deadline(deadline))
    uvicorn_server = uvicorn.Server(config)
    if on_ready is not None:
        on_ready(url_of(sock))
    await uvicorn_server.serve(sockets=[sock])
