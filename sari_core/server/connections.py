"""Server-issued connection ids: one UUID per MCP connection, ended when it closes.

The kernel keys a session by ``connection_id`` unless the client program names one (in the
request's ``_meta``, see :mod:`sari_core.kernel.identity`; never a ``session_id`` argument,
which the model writes), so every MCP connection needs its own id that the client cannot
choose:

- A handshake-era connection (stdio, or one streamable-HTTP session, i.e. one
  ``Mcp-Session-Id``) lives across requests: its id is stored in the SDK's
  per-connection ``state`` and the kernel's ``end_connection`` is pushed onto
  the connection's ``exit_stack``, which the SDK unwinds when the connection
  closes (client exit, HTTP ``DELETE``, idle timeout, shutdown).
- A stdio server serves exactly one client per process, so it may pin one id
  for the whole process (``fixed_id``) — this covers 2026-era stdio clients too,
  whose requests each arrive on a fresh SDK connection object.
- A 2026-era stateless HTTP request is its own connection: state then lasts one
  call unless the client program names its session in ``_meta`` (``sari/session_id``),
  which is what that protocol era asks of stateful clients.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio.to_thread

from sari_core.kernel.sessions import new_connection_id

log = logging.getLogger(__name__)

STATE_KEY = "sari.connection_id"
# The tool catalog of the kernel serving one connection, when not the server's own.
CATALOG_KEY = "sari.catalog"
# One sentence for the next tool response of a connection (why its roots are not served).
NOTE_KEY = "sari.connection_note"
# Why a connection is served no workspace at all: (message, hint) of the refusal its tool
# calls get instead.
REFUSAL_KEY = "sari.connection_refusal"


def add_connection_note(ctx: Any, response: dict[str, Any]) -> None:
    """Put the connection's pending note (if any) first among the response's warnings, once."""
    connection = sdk_connection(ctx)
    block = (response.get("meta") or {}).get("stabilization")
    if connection is None or not isinstance(block, dict) or NOTE_KEY not in connection.state:
        return
    block.setdefault("warnings", []).insert(0, str(connection.state.pop(NOTE_KEY)))

EndConnection = Callable[[str], None]


def sdk_connection(ctx: Any) -> Any | None:
    """The SDK's per-connection object behind a request context, if it can be reached.

    ``mcp`` 2.3 hands lowlevel handlers a ``ServerRequestContext`` whose session
    holds the ``Connection``; the announced context rework exposes it as
    ``ctx.connection``. Both are tried so an SDK update does not silently merge
    every client into one session.
    """
    connection = getattr(ctx, "connection", None)
    if connection is None:
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
    if connection is None or not hasattr(connection, "state"):
        return None
    return connection


class ConnectionIds:
    """Hands out the connection id of each request and ends it with its connection.

    :param end_connection: called (in a worker thread) with an id whose connection closed.
    :param fixed_id: one id for every request (a stdio process serves one client).
    """

    def __init__(self, end_connection: EndConnection, fixed_id: str | None = None) -> None:
        self._end_connection = end_connection
        self.fixed_id = fixed_id
        self.opened = 0
        self.closed = 0

    def for_request(self, ctx: Any) -> str:
        if self.fixed_id is not None:
            return self.fixed_id
        connection = sdk_connection(ctx)
        if connection is None:
            log.warning("no SDK connection on the request context; using a one-call connection id")
            return new_connection_id()
        # No await between the lookup and the store: concurrent requests of one connection
        # on the event loop cannot both create an id.
        existing = connection.state.get(STATE_KEY)
        if isinstance(existing, str):
            return existing
        connection_id = new_connection_id()
        connection.state[STATE_KEY] = connection_id
        connection.exit_stack.push_async_callback(self._ended, connection_id)
        self.opened += 1
        log.info("connection %s opened", connection_id)
        return connection_id

    async def _ended(self, connection_id: str) -> None:
        self.closed += 1
        log.info("connection %s closed", connection_id)
        try:
            await anyio.to_thread.run_sync(self._end_connection, connection_id)
        except Exception:  # a plugin's session-end failure must not break the teardown
            log.exception("ending connection %s failed", connection_id)
