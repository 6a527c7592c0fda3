"""Which policy session a native call belongs to: the client's own session id keys it.

A client's hook carries the client's id of its session (``session_id``): an identity
the client gives, never a value a model wrote. The native call runs in the session
``<client>:<session_id>``, named as the client program names a session (so a server in
strict session mode serves it whole), and every native call of one client session
shares one session state (budget, aggregation ledger, refgate state, execution log).

The model's calls of Sari's own tools arrive on the client's MCP connection. When a
hook call arrives over that same connection (a Claude Code ``mcp_tool`` hook), the
connection is bound to the client's session: from then on the model's own Sari calls
on it run in the same session, so Sari's tools and the client's share one session.
"""

from __future__ import annotations

import threading

from sari_core.kernel.identity import SessionIdentity
from sari_core.native.calls import NativeCall

_lock = threading.Lock()
# MCP connection id -> the native connection of the client session that spoke on it.
_bound: dict[str, str] = {}
MAX_BOUND = 4096


def connection_for(call: NativeCall) -> str | None:
    """The connection id native calls of ``call``'s client session run on (None: the
    kernel's default connection, for a call without a session id)."""
    if not call.session_id:
        return None
    return f"{call.client}:{call.session_id}"


def identity_for(call: NativeCall) -> SessionIdentity | None:
    """The session identity the client gives ``call`` (None without a session id: the
    kernel's default connection)."""
    session = connection_for(call)
    return None if session is None else SessionIdentity(session_id=session,
                                                        connection_id=session)


def bind_connection(mcp_connection: str, call: NativeCall) -> None:
    """Key the model's own calls on ``mcp_connection`` by ``call``'s client session."""
    native = connection_for(call)
    if native is None:
        return
    with _lock:
        if mcp_connection not in _bound and len(_bound) >= MAX_BOUND:
            _bound.pop(next(iter(_bound)))  # the oldest binding goes
        _bound[mcp_connection] = native


def bound_connection(mcp_connection: str) -> str:
    """The connection id a call on ``mcp_connection`` runs on: the client session bound
    to it, else the connection itself."""
    return _bound.get(mcp_connection, mcp_connection)


def bound_session(mcp_connection: str) -> str | None:
    """The client session a hook bound ``mcp_connection`` to, if any: the session the
    model's own calls on it are counted in."""
    return _bound.get(mcp_connection)


def unbind_connection(mcp_connection: str) -> None:
    with _lock:
        _bound.pop(mcp_connection, None)
