"""The library API for agent loops that own their conversation.

An agent loop opens a chat session, records every frame (user, assistant, tool —
with the tool's name and Sari's execution id), compacts when its window is full
(keeping the last N frames) and queries what left the window::

    log = ExecutionLog.of(kernel)                      # the kernel's own log
    chat = log.chat_session("run-42", project_root=str(repo))
    chat.user("Rename parse() in src/parser.py")
    response = kernel.execute_mutation("edit", {...})
    chat.tool("edit", json.dumps(response), execution_id=response["meta"]["execution_id"])
    outcome = chat.compact(keep_last=6, kernel=kernel)  # runs the kernel's on_compaction
    page = chat.query(text="parse(")

Recording is asynchronous (the writer thread commits within ``flush_interval_ms``);
every read flushes first, so a loop always reads its own writes.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sari_core import CompactionEvent, canonical_root
from sari_persistence import reads
from sari_persistence.compaction import live_window, project_root_of, summary_with_log
from sari_persistence.reads import ChatSessionInfo, CompactionInfo, StoredExecution, StoredFrame
from sari_persistence.records import ChatSessionRecord, FrameRecord, now_ms
from sari_persistence.search import Page, Query, Scope, search
from sari_persistence.settings import SECTION, PersistenceSettings
from sari_persistence.store import (
    ExecutionStore,
    StoredCompaction,
    WriterOptions,
    open_store,
    store_compaction,
)

if TYPE_CHECKING:
    from sari_core import Kernel

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True)
class CompactionOutcome:
    """What a compaction did. ``compaction`` is None when there was nothing to compact."""

    summary: str
    compacted_count: int
    retained_count: int
    compaction: CompactionInfo | None


class ExecutionLog:
    """One execution log database: chat sessions, frames, executions, compactions."""

    def __init__(self, store: ExecutionStore, settings: PersistenceSettings, *,
                 owns_store: bool) -> None:
        self.store = store
        self.settings = settings
        self._owns_store = owns_store

    @classmethod
    def open(cls, path: str | Path | None = None,
             settings: PersistenceSettings | None = None) -> ExecutionLog:
        """Open (create, migrate) a log of your own; close it when done.

        :raises ExecutionLogUnavailable: unreadable, foreign or newer-schema file.
        """
        settings = settings or PersistenceSettings.model_validate({})
        if path is None:
            return cls(open_store(settings), settings, owns_store=True)
        return cls(ExecutionStore(Path(path), WriterOptions.from_settings(settings),
                                  machine=settings.machine), settings, owns_store=True)

    @classmethod
    def of(cls, kernel: Kernel) -> ExecutionLog:
        """The log the kernel's persistence plugin records into (shared, not owned)."""
        plugin = kernel.plugin(SECTION)
        store = getattr(plugin, "store", None)
        if store is None:
            reason = getattr(plugin, "unavailable", None) or "the persistence plugin is not loaded"
            raise RuntimeError(f"no execution log for this kernel: {reason}")
        return cls(store, kernel.settings.get(SECTION), owns_store=False)

    # --- chat sessions --------------------------------------------------------------------

    def chat_session(self, session_id: str | None = None, *, project_root: str | None = None,
                     llm_provider: str | None = None, model: str | None = None) -> ChatSession:
        """Open (creating if new) a chat session; a new id is generated when none is given."""
        chat_id = session_id or str(uuid.uuid4())
        root = canonical_root(project_root) if project_root else None
        self.store.submit(ChatSessionRecord(chat_id, now_ms(), root, llm_provider, model))
        return ChatSession(self, chat_id, root)

    def sessions(self, limit: int = 100) -> list[ChatSessionInfo]:
        self.store.flush()
        with self.store.reading() as conn:
            return reads.chat_sessions(conn, limit)

    def frames(self, session_id: str, *, include_compacted: bool = True) -> list[StoredFrame]:
        self.store.flush()
        with self.store.reading() as conn:
            return reads.frames(conn, session_id, include_compacted=include_compacted)

    def executions(self, session: str) -> list[StoredExecution]:
        """Executions of a kernel session key or of a chat/client session id."""
        self.store.flush()
        with self.store.reading() as conn:
            return reads.executions(conn, session)

    def compactions(self, session_id: str) -> list[CompactionInfo]:
        self.store.flush()
        with self.store.reading() as conn:
            return reads.compactions(conn, session_id)

    def query(self, *, chat_session_id: str | None = None, **filters: Any) -> Page:
        """Search frames and executions (all sessions, or one chat session's)."""
        scope = (Scope(chat_session_ids=(chat_session_id,), name="session")
                 if chat_session_id else Scope(everything=True, name="all"))
        self.store.flush()
        with self.store.reading() as conn:
            return search(conn, Query(**filters), scope)

    def flush(self) -> None:
        self.store.flush()

    def close(self) -> None:
        """Flush; close the database if this object opened it."""
        if self._owns_store:
            self.store.close()
        else:
            self.store.flush()

    def __enter__(self) -> ExecutionLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ChatSession:
    """One conversation in the log. Frames get sequence indexes in recording order."""

    def __init__(self, log: ExecutionLog, session_id: str, project_root: str | None) -> None:
        self.log = log
        self.session_id = session_id
        self.project_root = project_root

    def record(self, role: Role, content: str, *, tool_name: str | None = None,
               execution_id: str | None = None, timestamp: int | None = None) -> bool:
        """Record a frame (non-blocking); False when the writer queue was full."""
        if role not in ("user", "assistant", "tool"):
            raise ValueError(f"role must be user, assistant or tool, not {role!r}")
        return self.log.store.submit(FrameRecord(self.session_id, role, content, tool_name,
                                                 execution_id, timestamp or now_ms()))

    def user(self, content: str) -> bool:
        return self.record("user", content)

    def assistant(self, content: str) -> bool:
        return self.record("assistant", content)

    def tool(self, tool_name: str, content: str, execution_id: str | None = None) -> bool:
        return self.record("tool", content, tool_name=tool_name, execution_id=execution_id)

    def frames(self, *, include_compacted: bool = True) -> list[StoredFrame]:
        return self.log.frames(self.session_id, include_compacted=include_compacted)

    def query(self, **filters: Any) -> Page:
        return self.log.query(chat_session_id=self.session_id, **filters)

    def compact(self, keep_last: int | None = None, *, kernel: Kernel | None = None,
                trigger: str = "manual") -> CompactionOutcome:
        """Compact all live frames but the last ``keep_last``.

        With a ``kernel`` the summary comes from its compaction pipeline
        (``Kernel.compact``: this plugin's base block plus other plugins' lines);
        without one, from this plugin alone.
        """
        keep = self.log.settings.keep_last_frames if keep_last is None else keep_last
        store = self.log.store
        store.flush()
        with store.reading() as conn:
            window = live_window(conn, self.session_id, keep)
            root = project_root_of(conn, self.session_id, self.project_root)
        if not window.compacted:
            return CompactionOutcome("", 0, len(window.retained), None)
        event = CompactionEvent(
            chat_session_id=self.session_id,
            frames=[frame.to_chat_frame() for frame in window.compacted],
            retained=[frame.to_chat_frame() for frame in window.retained], trigger=trigger)
        stored_by_kernel = False
        if kernel is not None:
            summary = kernel.compact(event, session_id=self.session_id)
            plugin = kernel.plugin(SECTION)
            stored_by_kernel = getattr(plugin, "store", None) is store
        else:
            with store.reading() as conn:
                summary = summary_with_log(conn, event.frames, event.retained, root,
                                           self.log.settings)
        if not stored_by_kernel:
            self._store(event, summary)
        with store.reading() as conn:
            latest = reads.latest_compaction(conn, self.session_id)
        return CompactionOutcome(summary, len(window.compacted), len(window.retained), latest)

    def _store(self, event: CompactionEvent, summary: str) -> StoredCompaction:
        cap = self.log.settings.max_payload_chars
        compacted = [frame.sequence_index for frame in event.frames]
        retained = [frame.sequence_index for frame in event.retained]
        return self.log.store.run_job(
            lambda conn: store_compaction(conn, self.session_id, compacted, retained, summary,
                                          cap))
