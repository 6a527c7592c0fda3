"""A deadline for reading each HTTP request: a client trickling its bytes is disconnected.

uvicorn closes a keep-alive connection idle between requests (the server sets that to
the same deadline), but a connection that has sent part of a request (a header line every
few seconds, or nothing at all after connecting) stays open as long as the client likes:
a few hundred of them hold as many sockets and buffers. Here every request must arrive
whole (request line, headers and body) within ``SARI_HTTP_READ_SECONDS`` (default 10) of
the connection opening or of the previous response ending; otherwise the connection is
closed. Once a request is read, the time the server takes to answer it is not counted.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from sari_core.server.http_sessions import _positive

log = logging.getLogger(__name__)

DEFAULT_READ_SECONDS = 10.0


def read_seconds() -> float:
    """How long a client may take to send one whole request."""
    return _positive("SARI_HTTP_READ_SECONDS", DEFAULT_READ_SECONDS)


class ReadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request is not read in time."""

    read_seconds = DEFAULT_READ_SECONDS  # set per server (see serve_http)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self._request_read():
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has its own deadline

    def _request_read(self) -> bool:
        cycle = self.cycle
        return cycle is not None and not cycle.response_complete and not cycle.more_body

    def _arm(self) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(self.read_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _too_slow(self) -> None:
        self._read_deadline = None
        if self._request_read() or self.transport.is_closing():
            return
        log.info("HTTP connection from %s closed: no whole request within %g s",
                 self.client[0] if self.client else "?", self.read_seconds)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app waiting for the body sees a disconnect
            cycle.message_event.set()
        self.transport.close()


def protocol_with_deadline(seconds: float) -> type[ReadDeadlineProtocol]:
    """The protocol class for one server (uvicorn takes a class, not an instance)."""
    return type("ReadDeadlineProtocol", (ReadDeadlineProtocol,), {"read_seconds": seconds})
