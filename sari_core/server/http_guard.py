"""Who may talk to the HTTP server: Host and Origin on every bind, a bearer token off loopback.

Every request is checked before it reaches the MCP application, so a refused request
has no side effect (no session, no call, no log record of a call):

* ``Host`` must name this server with the port it serves: the address the connection
  arrived on, ``localhost`` when that address is a loopback one, and, for a server
  bound beyond loopback, the bind address, this machine's host names and the names
  given with ``--allow-host``. Anything else is answered 421 (a DNS-rebinding page sends its own
  host name).
* ``Origin``, when present, must be this same server (scheme, name and port): a page
  served from any other origin, another local port included, or the opaque ``null``
  origin gets 403.
* With a token, ``Authorization: Bearer <token>`` must carry it exactly; otherwise
  401 with ``WWW-Authenticate: Bearer``.

Addresses in ``127.0.0.0/8`` and ``::1`` count as loopback: only processes on this
machine can reach them.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

LOCALHOST = "localhost"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_loopback(address: str) -> bool:
    """Whether ``address`` (an IP literal) can only be reached from this machine."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return address.lower() == LOCALHOST


def machine_names() -> frozenset[str]:
    """This machine's own host names, accepted in ``Host`` by a server bound beyond loopback."""
    names = {socket.gethostname(), socket.getfqdn()}
    return frozenset(name.lower() for name in names if name)


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``name[:port]`` of a Host header -> (lower-case name, port); None when malformed."""
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.path or parts.query:
        return None
    return parts.hostname.lower(), port


@dataclass(frozen=True)
class HostRule:
    """The names and the port a request must address.

    :ivar port: the port the server listens on.
    :ivar extra_names: names accepted besides the connection's own address (and
        ``localhost`` on a loopback connection).
    """

    port: int
    extra_names: frozenset[str] = field(default_factory=frozenset)

    def names_for(self, local_address: str | None) -> set[str]:
        names = set(self.extra_names)
        if local_address:
            address = local_address.split("%", 1)[0].lower()
            names.add(address)
            if is_loopback(address):
                names.add(LOCALHOST)
        return names

    def accepts_host(self, value: str | None, local_address: str | None) -> bool:
        split = _split_host(value or "")
        if split is None:
            return False
        name, port = split
        return port == self.port and name in self.names_for(local_address)

    def accepts_origin(self, value: str, local_address: str | None) -> bool:
        try:
            parts = urlsplit(value)
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            return False
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("",):
            return False
        return port == self.port and parts.hostname.lower() in self.names_for(local_address)


class HttpGuard:
    """ASGI middleware refusing requests that do not address this server, or lack the token."""

    def __init__(self, app: ASGIApp, rule: HostRule, token: str | None = None) -> None:
        self.app = app
        self.rule = rule
        self._token = token.encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan events carry no request
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(Headers(scope=scope), scope.get("server"))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refusal(self, headers: Headers, server: Iterable[object] | None) -> Response | None:
        """The response refusing this request, or None when it may pass."""
        local = str(next(iter(server), "")) if server else None
        if not self.rule.accepts_host(headers.get("host"), local):
            return Response("Host does not name this server\n", status_code=421)
        origin = headers.get("origin")
        if origin is not None and not self.rule.accepts_origin(origin, local):
            return Response("Origin is not this server\n", status_code=403)
        if self._token is not None and not self._authorized(headers.get("authorization")):
            return Response("A bearer token is required\n", status_code=401,
                            headers={"WWW-Authenticate": 'Bearer realm="sari"'})
        return None

    def _authorized(self, value: str | None) -> bool:
        assert self._token is not None
        scheme, _, given = (value or "").strip().partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(given.strip().encode(), self._token)
