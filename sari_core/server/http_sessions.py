"""Bounds on streamable-HTTP sessions: an idle timeout and a cap that evicts the oldest.

Health checks and one-shot command-line clients open a session (``initialize``)
and never close it. Each holds its transport, its server task and its policy
session until it expires, so an unbounded number of them is unbounded memory.
Two bounds hold it:

- an idle timeout: a session with no request for ``SARI_HTTP_SESSION_IDLE_SECONDS``
  (default 600) is closed, and its policy session ends with it;
- a cap: at ``SARI_HTTP_MAX_SESSIONS`` (default 64) open sessions, a new one
  evicts the session idle the longest. Sessions with a request in flight are
  never evicted; only when every session is busy is the new one refused (503).

The SDK's session manager refuses new sessions at its own cap instead of
evicting; the admission step is wrapped here (:func:`bound_sessions`).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger(__name__)

DEFAULT_IDLE_SECONDS = 600.0
DEFAULT_MAX_SESSIONS = 64


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


def _idle_since(transport: Any) -> float:
    """When the session's idle countdown ends (infinite while a request is in flight)."""
    scope = getattr(transport, "idle_scope", None)
    if scope is None or scope.cancel_called:
        return math.inf
    return float(scope.deadline)


def evict_oldest_idle(manager: StreamableHTTPSessionManager, cap: int) -> int:
    """Close idle sessions, oldest first, until a new one fits under ``cap``.

    A session is evicted by ending its idle countdown now: its server task winds
    down exactly as on an idle timeout (the transport terminates and the policy
    session ends). It is forgotten at once, so its id answers 404 from here on.

    :return: how many sessions were evicted.
    """
    sessions: dict[str, Any] = manager._server_instances  # noqa: SLF001 - see module doc
    evicted = 0
    while len(sessions) >= cap:
        candidates = [(deadline, session_id) for session_id, transport in sessions.items()
                      if (deadline := _idle_since(transport)) != math.inf]
        if not candidates:
            return evicted  # every session is busy: the SDK refuses the new one
        _, oldest = min(candidates)
        transport = sessions.pop(oldest)
        manager._session_owners.pop(oldest, None)  # noqa: SLF001
        transport.idle_scope.cancel()
        evicted += 1
        log.info("HTTP session %s evicted: %d sessions open (cap %d)", oldest, len(sessions),
                 cap)
    return evicted


def bound_sessions(manager: StreamableHTTPSessionManager, cap: int) -> None:
    """Make ``manager`` evict the oldest idle session when a new one would exceed ``cap``."""
    admit: Callable[[Any], Any] = manager._admit_session  # noqa: SLF001
    manager.max_sessions = cap  # busy sessions only: the SDK refuses beyond them

    def admit_evicting(requestor: Any) -> Any:
        evict_oldest_idle(manager, cap)
        return admit(requestor)

    manager._admit_session = admit_evicting  # type: ignore[method-assign]  # noqa: SLF001
