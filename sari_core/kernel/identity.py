"""Whose session a call belongs to: the transport, the client program or the operator says,
never the model.

A model writes a tool call's arguments, and it may write any argument, listed or not. So an
argument never picks the session a call is counted in: a ``session_id`` argument the model
wrote is only a *scope*, a label inside the session the transport and the client already
name (a budget, a gate or a ref set is the session's, whatever the label). The session
itself comes from, most trusted first:

1. the operator: a program running the kernel in-process names it (``sari read
   --session-id``, a script calling ``Kernel.execute_read`` with ``session_id``);
2. the client program: a hook's own ``session_id`` (``sari hook claude-code ...``), or the
   ``sari/session_id`` key of a request's ``_meta``, which the client program sets and the
   model cannot;
3. the transport: the connection the call came on (one MCP session).

Every entry point (the MCP server, client hooks, the kernel's own API) builds its
:class:`SessionIdentity` here, so the rule lives in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The request ``_meta`` key under which a client program names its session.
META_SESSION_KEY = "sari/session_id"
# The argument a model (or a program) may send; from a model it is a scope only.
SESSION_ARGUMENT = "session_id"
_MAX_ID_CHARS = 200


def _clean(value: Any) -> str | None:
    """A usable id: a non-empty string of bounded length, else None."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value[:_MAX_ID_CHARS] if value else None


@dataclass(frozen=True)
class SessionIdentity:
    """The session a call belongs to.

    :ivar session_id: the session named by the operator or the client program, if any.
    :ivar connection_id: the server-issued id of the connection (the transport's session).
    :ivar scope: a narrower label the call's own arguments named; never a session of its own.
    """

    session_id: str | None = None
    connection_id: str | None = None
    scope: str | None = None

    @property
    def named(self) -> bool:
        """Whether anything named the session or a scope (what strict mode asks for)."""
        return bool(self.session_id or self.scope)


def operator_identity(arguments: Mapping[str, Any],
                      connection_id: str | None = None) -> SessionIdentity:
    """A call made by a program the operator runs: its ``session_id`` argument names the
    session."""
    return SessionIdentity(session_id=_clean(arguments.get(SESSION_ARGUMENT)),
                           connection_id=connection_id)


def model_identity(arguments: Mapping[str, Any], connection_id: str | None, *,
                   client_session_id: Any = None) -> SessionIdentity:
    """A call whose arguments a model wrote, on a transport connection.

    :param client_session_id: the session the client program names (a hook's
        ``session_id``, a request's ``_meta``), if any; else the connection is the session.
    :return: the identity; a ``session_id`` argument is kept as the scope only.
    """
    return SessionIdentity(session_id=_clean(client_session_id), connection_id=connection_id,
                           scope=_clean(arguments.get(SESSION_ARGUMENT)))


def client_meta_session(meta: Mapping[str, Any] | None) -> str | None:
    """The session a client program names in a request's ``_meta``, if any."""
    return _clean((meta or {}).get(META_SESSION_KEY))
