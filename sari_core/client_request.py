"""What the transport knew about the request a call came in: method, id and ``_meta``.

The MCP server sets it around each tool call; kernel code and plugins running in
that call (in the same thread or a worker thread, which inherits the context) read
it with :func:`current_client_request`. Library calls have none. It carries data
only (for example W3C trace context under ``_meta.traceparent``), never policy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ClientRequest:
    """One request as the transport received it.

    :ivar method: the protocol method, e.g. ``tools/call``.
    :ivar request_id: the JSON-RPC request id, when there is one.
    :ivar meta: the request's ``_meta`` object (empty when the client sent none).
    :ivar protocol_version: the negotiated protocol version, when known.
    """

    method: str
    request_id: str | int | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None


_CURRENT: ContextVar[ClientRequest | None] = ContextVar("sari_client_request", default=None)


def current_client_request() -> ClientRequest | None:
    """The request the running call belongs to, or None outside a transport."""
    return _CURRENT.get()


@contextmanager
def client_request(request: ClientRequest) -> Iterator[ClientRequest]:
    """Make ``request`` current for the calls made inside the block."""
    token = _CURRENT.set(request)
    try:
        yield request
    finally:
        _CURRENT.reset(token)
