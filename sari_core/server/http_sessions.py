"""Bounds on streamable-HTTP sessions: an idle timeout, a cap per client and a cap in all.

Health checks and one-shot command-line clients open a session (``initialize``)
and never close it. Each holds its transport, its server task and its policy
session until it expires, so an unbounded number of them is unbounded memory.
Three bounds hold it:

- an idle timeout: a session with no request for ``SARI_HTTP_SESSION_IDLE_SECONDS``
  (default 600) is closed, and its policy session ends with it;
- a cap per client: a client holding ``SARI_HTTP_MAX_SESSIONS_PER_CLIENT`` (default 16)
  sessions that opens one more loses its own session idle the longest, never
  another client's;
- a cap in all: at ``SARI_HTTP_MAX_SESSIONS`` (default 64) open sessions, a new one
  evicts the session idle the longest of its own client; a client with none to give up
  is refused (503). Sessions with a request in flight are never evicted.

A client is told apart by its address, its credential (``Authorization``) and its
``User-Agent``: on one machine every local client shares the loopback address, and a
client opening sessions by the dozen must not push out the editor's one idle session.
Since a client names its own ``User-Agent``, one that changes it with every session is
as many clients: so no client's new session ever evicts another client's, at either cap.

The SDK's session manager refuses new sessions at its own cap instead of evicting, and
offers no public way to admit or end a session: this module is the one place that reads
and wraps its internals (its session table, admission step and request handler). It says
in the log when the SDK is not a release it was written for (:data:`MCP_WRITTEN_FOR`);
when those internals are gone, sessions keep the SDK's own cap and idle timeout, and the
log says that the caps evict no longer (:func:`sdk_checked`).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
from collections.abc import Callable
from contextvars import ContextVar
from importlib.metadata import version
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger(__name__)

DEFAULT_IDLE_SECONDS = 600.0
DEFAULT_MAX_SESSIONS = 64
DEFAULT_MAX_SESSIONS_PER_CLIENT = 16

# mcp SDK releases (major, minor) whose session manager internals this module reads.
MCP_WRITTEN_FOR = ((2, 3),)
SDK_INTERNALS = ("_server_instances", "_session_owners", "_admit_session",
                 "_handle_stateful_request")

# The client of the request being admitted (set around the SDK's request handling).
_CLIENT: ContextVar[str] = ContextVar("sari_http_client", default="")


def _positive(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        log.warning("%s=%r is not a number; using %s", name, raw, default)
        return default
    if not math.isfinite(value) or value <= 0:
        log.warning("%s=%r must be positive; using %s", name, raw, default)
        return default
    return value


def idle_seconds() -> float:
    """How long an HTTP session may stay without a request before it is closed."""
    return _positive("SARI_HTTP_SESSION_IDLE_SECONDS", DEFAULT_IDLE_SECONDS)


def max_sessions() -> int:
    """How many HTTP sessions may be open at once."""
    return int(_positive("SARI_HTTP_MAX_SESSIONS", DEFAULT_MAX_SESSIONS))


def max_sessions_per_client() -> int:
    """How many HTTP sessions one client may hold at once."""
    return int(_positive("SARI_HTTP_MAX_SESSIONS_PER_CLIENT", DEFAULT_MAX_SESSIONS_PER_CLIENT))


def client_key(scope: dict[str, Any]) -> str:
    """Who opens a session: address, credential and User-Agent (the credential hashed,
    so the key can be logged)."""
    headers = dict(scope.get("headers") or [])
    client = scope.get("client") or ("", 0)
    credential = hashlib.sha256(headers.get(b"authorization", b"")).hexdigest()[:12]
    agent = headers.get(b"user-agent", b"").decode("latin-1")[:80]
    return f"{client[0]} {credential} {agent}"


def _idle_since(transport: Any) -> float:
    """When the session's idle countdown ends (infinite while a request is in flight)."""
    scope = getattr(transport, "idle_scope", None)
    if scope is None or scope.cancel_called:
        return math.inf
    return float(scope.deadline)


def _evict(manager: StreamableHTTPSessionManager, session_id: str, why: str) -> None:
    """End a session's idle countdown now: its server task winds down exactly as on an idle
    timeout (the transport terminates and the policy session ends). It is forgotten at
    once, so its id answers 404 from here on."""
    sessions: dict[str, Any] = manager._server_instances  # noqa: SLF001 - see module doc
    transport = sessions.pop(session_id)
    manager._session_owners.pop(session_id, None)  # noqa: SLF001
    transport.idle_scope.cancel()
    log.info("HTTP session %s evicted: %s", session_id, why)


def _oldest_idle(manager: StreamableHTTPSessionManager, among: set[str]) -> str | None:
    sessions: dict[str, Any] = manager._server_instances  # noqa: SLF001
    candidates = [(deadline, session_id) for session_id in among
                  if (deadline := _idle_since(sessions[session_id])) != math.inf]
    return min(candidates)[1] if candidates else None


class SessionBounds:
    """Who opened each session, and the evictions that make room for a new one."""

    def __init__(self, manager: StreamableHTTPSessionManager, cap: int, per_client: int) -> None:
        self.manager = manager
        self.cap = cap
        self.per_client = per_client
        self.owners: dict[str, str] = {}  # session id -> client key

    def _held(self) -> dict[str, set[str]]:
        """client -> its open sessions (forgetting sessions that have ended)."""
        sessions = self.manager._server_instances  # noqa: SLF001
        self.owners = {sid: owner for sid, owner in self.owners.items() if sid in sessions}
        held: dict[str, set[str]] = {}
        for session_id in sessions:
            held.setdefault(self.owners.get(session_id, ""), set()).add(session_id)
        return held

    def make_room(self, client: str) -> bool:
        """Evict what must go for ``client`` to open a session; False when nothing may."""
        held = self._held()
        mine = held.get(client, set())
        while len(mine) >= self.per_client:
            oldest = _oldest_idle(self.manager, mine)
            if oldest is None:
                return False  # every one of its sessions is busy
            _evict(self.manager, oldest, f"its client opened more than {self.per_client}")
            mine.discard(oldest)
        total = sum(len(ids) for ids in held.values())
        while total >= self.cap:
            # Only the client's own: another's idle session is not its to take.
            oldest = _oldest_idle(self.manager, mine)
            if oldest is None:
                log.warning("HTTP session refused: %d sessions open (cap %d), none of this "
                            "client's idle", total, self.cap)
                return False
            _evict(self.manager, oldest, f"{total} sessions open (cap {self.cap})")
            mine.discard(oldest)
            total -= 1
        return True

    def admitted(self, session_id: str, client: str) -> None:
        self.owners[session_id] = client


def sdk_checked(manager: StreamableHTTPSessionManager) -> bool:
    """Whether ``manager`` has the internals this module wraps; a warning in the log when it
    does not, or when the SDK is a release this module was not written for."""
    found = version("mcp")
    missing = [name for name in SDK_INTERNALS if not hasattr(manager, name)]
    if missing:
        log.warning("mcp %s: its session manager lacks %s; HTTP sessions keep the SDK's own "
                    "cap (%d) and idle timeout, and no cap evicts an idle session",
                    found, ", ".join(missing), getattr(manager, "max_sessions", 0) or 0)
        return False
    major_minor = tuple(int(part) for part in found.split(".")[:2] if part.isdigit())
    if major_minor not in MCP_WRITTEN_FOR:
        written = " and ".join(f"{major}.{minor}" for major, minor in MCP_WRITTEN_FOR)
        log.warning("mcp %s found; the HTTP session bounds were written for %s (if sessions "
                    "misbehave, install one of those)", found, written)
    return True


def bound_sessions(manager: StreamableHTTPSessionManager, cap: int,
                   per_client: int | None = None) -> SessionBounds:
    """Make ``manager`` evict idle sessions, per client and in all, when a new one would
    exceed a cap (see the module doc)."""
    bounds = SessionBounds(manager, cap, per_client or max_sessions_per_client())
    manager.max_sessions = cap  # busy sessions only: the SDK refuses beyond them
    if not sdk_checked(manager):
        return bounds
    admit: Callable[[Any], Any] = manager._admit_session  # noqa: SLF001
    handle: Callable[..., Any] = manager._handle_stateful_request  # noqa: SLF001

    def admit_evicting(requestor: Any) -> Any:
        client = _CLIENT.get()
        if not bounds.make_room(client):
            return None
        transport = admit(requestor)
        if transport is not None:
            bounds.admitted(transport.mcp_session_id, client)  # pyright: ignore[reportArgumentType] - a stateful transport has its id
        return transport

    async def handle_naming_client(scope: Any, receive: Any, send: Any) -> None:
        token = _CLIENT.set(client_key(scope))
        try:
            await handle(scope, receive, send)
        finally:
            _CLIENT.reset(token)

    manager._admit_session = admit_evicting  # type: ignore[method-assign]  # noqa: SLF001
    manager._handle_stateful_request = handle_naming_client  # type: ignore[method-assign]  # noqa: SLF001
    return bounds
