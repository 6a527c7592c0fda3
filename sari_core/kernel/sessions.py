"""Session identity and the bounded, in-memory runtime state kept per session key.

Keys are ``ws:<workspace_hash>:sid:<session_id>`` when the call
names a session, else ``ws:<workspace_hash>:conn:<connection_id>`` with a
server-issued connection id. A client-sent connection id is telemetry only.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sari_core.engine_protocol import CountsReferences, ListsMatchingFiles
from sari_core.models import ReadCall

if TYPE_CHECKING:
    from sari_core.kernel import Kernel
    from sari_core.models import ReadResult, SearchCall, TierEntry

T = TypeVar("T")


def canonical_root(root: str | os.PathLike[str]) -> str:
    """expanduser + realpath + forward slashes: the form every hash is taken of."""
    return os.path.realpath(os.path.expanduser(os.fspath(root))).replace("\\", "/")


def workspace_hash(root: str | os.PathLike[str]) -> str:
    return hashlib.sha1(canonical_root(root).encode("utf-8")).hexdigest()[:12]


def new_connection_id() -> str:
    return str(uuid.uuid4())


class SessionIdRequired(Exception):
    """Strict mode is on and the call named no session_id."""


def strict_session_mode() -> bool:
    return os.environ.get("SARI_STRICT_SESSION_ID", "").strip().lower() in {"1", "true", "yes", "on"}


def resolve_session_key(
    workspace_root: str | os.PathLike[str] | None = None,
    *,
    session_id: str | None,
    connection_id: str,
    strict: bool | None = None,
    ws_hash: str | None = None,
) -> str:
    """Return the policy key for a call.

    :param workspace_root: the primary workspace root (hashed), or give ``ws_hash``.
    :param session_id: the session the client named, if any.
    :param connection_id: the server-issued id of the connection the call came on.
    :param strict: refuse calls without ``session_id``; defaults to ``SARI_STRICT_SESSION_ID``.
    :raises SessionIdRequired: in strict mode when ``session_id`` is missing.
    """
    digest = ws_hash or workspace_hash(workspace_root or ".")
    if session_id:
        return f"ws:{digest}:sid:{session_id}"
    if strict if strict is not None else strict_session_mode():
        raise SessionIdRequired("session_id is required (SARI_STRICT_SESSION_ID=1)")
    return f"ws:{digest}:conn:{connection_id}"


@dataclass
class SessionState:
    """Everything policies remember about one session; a namespace per plugin."""

    key: str
    created_at: float
    last_seen: float
    namespaces: dict[str, Any] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def namespace(self, name: str, factory: Callable[[], T]) -> T:
        try:
            return self.namespaces[name]  # type: ignore[no-any-return]
        except KeyError:
            with self.lock:
                return self.namespaces.setdefault(name, factory())  # type: ignore[no-any-return]


class RuntimeStateStore:
    """Thread-safe LRU + TTL map of session key -> :class:`SessionState`.

    :param max_sessions: the LRU bound; the least recently used session is evicted.
    :param ttl_seconds: idle time after which a session is discarded.
    :param on_evict: called with each evicted state (outside the lock).
    """

    def __init__(
        self,
        max_sessions: int = 1024,
        ttl_seconds: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        on_evict: Callable[[SessionState], None] | None = None,
    ) -> None:
        self.max_sessions = max_sessions
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._on_evict = on_evict
        self._states: OrderedDict[str, SessionState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[SessionState, bool]:
        """Return the state for ``key`` and whether it was created by this call."""
        now = self._clock()
        evicted: list[SessionState] = []
        with self._lock:
            state = self._states.get(key)
            if state is not None and now - state.last_seen > self.ttl_seconds:
                evicted.append(self._states.pop(key))
                state = None
            created = state is None
            if state is None:
                state = SessionState(key=key, created_at=now, last_seen=now)
                self._states[key] = state
            else:
                state.last_seen = now
                self._states.move_to_end(key)
            evicted.extend(self._expire_locked(now))
            while len(self._states) > self.max_sessions:
                evicted.append(self._states.popitem(last=False)[1])
        self._notify(evicted)
        return state, created

    def peek(self, key: str) -> SessionState | None:
        with self._lock:
            return self._states.get(key)

    def discard(self, key: str) -> SessionState | None:
        with self._lock:
            return self._states.pop(key, None)

    def expire(self) -> list[SessionState]:
        with self._lock:
            evicted = self._expire_locked(self._clock())
        self._notify(evicted)
        return evicted

    def _expire_locked(self, now: float) -> list[SessionState]:
        evicted = []
        # Oldest first: stop at the first session still fresh.
        while self._states:
            key, state = next(iter(self._states.items()))
            if now - state.last_seen <= self.ttl_seconds:
                break
            evicted.append(self._states.pop(key))
        return evicted

    def _notify(self, evicted: list[SessionState]) -> None:
        if self._on_evict:
            for state in evicted:
                self._on_evict(state)

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._states)

    def __len__(self) -> int:
        with self._lock:
            return len(self._states)


class Session:
    """What a hook sees of the session a call belongs to.

    :ivar key: the policy key (``ws:<hash>:sid:<id>`` or ``ws:<hash>:conn:<uuid>``).
    :ivar session_id: the session id the operator or the client program named, if any.
    :ivar connection_id: the server-issued connection id.
    :ivar client_connection_id: what the client claimed; telemetry only.
    :ivar scope: a narrower label the call's own arguments named (a model may write it, so
        it never keys state: the session's budget and gates are the same under any scope).
    """

    __slots__ = ("_kernel", "_state", "client_connection_id", "connection_id", "key",
                 "scope", "session_id")

    def __init__(self, key: str, session_id: str | None, connection_id: str,
                 state: SessionState, kernel: Kernel,
                 client_connection_id: str | None = None, scope: str | None = None) -> None:
        self.key = key
        self.session_id = session_id
        self.scope = scope
        self.connection_id = connection_id
        self.client_connection_id = client_connection_id
        self._state = state
        self._kernel = kernel

    def __repr__(self) -> str:
        return f"Session(key={self.key!r})"

    @property
    def lock(self) -> threading.RLock:
        """The session's lock: hold it while reading or changing your namespace's state."""
        return self._state.lock

    @property
    def workspace_id(self) -> str:
        """A stable id of the workspace (a hash of its first root)."""
        return self._kernel.workspace_hash

    @property
    def roots(self) -> list[Path]:
        """The workspace folders."""
        return self._kernel.roots

    def namespace(self, name: str, factory: Callable[[], T]) -> T:
        """Per-plugin runtime state of this session, created by ``factory`` on first use."""
        return self._state.namespace(name, factory)

    def existing_namespace(self, name: str) -> Any:
        """The namespace ``name`` if this session created it, else None (never creates)."""
        return self._state.namespaces.get(name)

    def settings(self, section: str) -> Any:
        """The validated settings model of a plugin section (``[tool.sari.<section>]``)."""
        return self._kernel.settings.get(section)

    def probe_read(self, call: ReadCall) -> ReadResult:
        """Read through the engine without running policies or counting it as a call.

        For policies that must look at a file to decide (its size, whether it exists).
        """
        return self._kernel.engine.read(call)

    def file_lines(self, target: str) -> int | None:
        """How many lines the file ``target`` has, asked of the engine as :meth:`probe_read`
        asks (no policy, no call counted, no line loaded); None when it cannot be read.

        For policies that size what they serve or propose by the file's length.
        """
        probe = ReadCall(mode="file", target=target, limit=1, preview_mode="none")
        try:
            return self._kernel.engine.read(probe).total_lines
        except Exception:  # noqa: BLE001 - a missing, binary or unreadable file has no length
            return None

    def matching_files(self, call: SearchCall) -> list[str] | None:
        """Every file a text or regex search matches (the set its ``total`` counts), when
        the engine can list it; None otherwise.

        For policies that must account for files beyond the matches a search shows.
        """
        engine = self._kernel.engine
        return list(engine.matching_files(call)) if isinstance(engine, ListsMatchingFiles) \
            else None

    def reference_counts(self) -> Mapping[str, int] | None:
        """How often each symbol is referenced in the workspace, when the engine knows."""
        engine = self._kernel.engine
        return engine.reference_counts() if isinstance(engine, CountsReferences) else None

    def metrics(self) -> dict[str, Any]:
        """The session's ``metrics_snapshot``, for plugin tools building a response."""
        return self._kernel.pm.metrics(self)

    def emit_tier_entry(self, entry: TierEntry) -> None:
        """Announce that an item entered a prompt-cache tier (``on_tier_entry``)."""
        self._kernel.pm.tier_entry(entry, self)
