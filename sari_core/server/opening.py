"""Leading a probing client to the ``initialize`` handshake on a stdio connection.

A server can send requests (``roots/list``) only on a connection opened with the
handshake; the 2026 protocol era forbids them. Clients that negotiate (Claude Code, the
Python client's ``auto`` mode) open with a ``server/discover`` probe and fall back to
``initialize`` on the same pipe when the probe is refused. The SDK's stdio loop, however,
fixes a connection's era by its first request: a probe carrying the 2026 envelope opens a
2026 connection, on which the fallback ``initialize`` is then refused (``-32022``, "the
initialize handshake is not accepted") and the client cannot connect at all.

:class:`HandshakeOpening` sits between the transport and the SDK: while no other request
has arrived, a ``server/discover`` probe is answered here (method not found, with the
reason) and never reaches the SDK, so the client's fallback ``initialize`` is the first
request the SDK sees and opens the handshake era. Everything else passes untouched,
including a 2026-era client that opens with another request.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

DISCOVER = "server/discover"
DECLINED_MESSAGE = ("Sari needs the initialize handshake on this connection (it asks the "
                    "client for its roots): open it with initialize.")


class HandshakeOpening:
    """A read stream that answers the ``server/discover`` probes preceding the first request.

    :param inner: the transport's read stream (``SessionMessage`` or ``Exception`` items).
    :param write_stream: where the refusal of a probe is written.
    """

    def __init__(self, inner: Any, write_stream: Any,
                 message: str = DECLINED_MESSAGE) -> None:
        self._inner = inner
        self._write = write_stream
        self._message = message
        self._opened = False

    @property
    def last_context(self) -> Any:  # the sender context a context-aware stream carries
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if self._opened or not isinstance(item, SessionMessage) \
                    or not isinstance(item.message, types.JSONRPCRequest):
                return item
            if item.message.method != DISCOVER:
                self._opened = True
                return item
            log.info("declined the client's server/discover probe: the handshake is needed")
            refusal = types.JSONRPCError(
                jsonrpc="2.0", id=item.message.id,
                error=types.ErrorData(code=types.METHOD_NOT_FOUND, message=self._message))
            await self._write.send(SessionMessage(refusal))

    def __aiter__(self) -> HandshakeOpening:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> HandshakeOpening:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
