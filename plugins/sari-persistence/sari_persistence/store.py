"""The execution log store: one backend (SQLite file or PostgreSQL), one writer thread.

Writes go through :class:`~sari_persistence.writer.BatchWriter` (records are
batched; compactions and ingestions run as jobs in queue order). Reads borrow a
connection of the backend (SQLite's WAL, or PostgreSQL's pool, lets them run while
the writer commits) and call :meth:`ExecutionStore.flush` first when they must see
everything recorded so far.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sari_persistence import spool
from sari_persistence.backends import PostgresBackend, SqliteBackend
from sari_persistence.dialect import is_postgres
from sari_persistence.records import (
    EXECUTION_COLUMNS,
    METRIC_COLUMNS,
    ChatSessionRecord,
    ExecutionRecord,
    ExecutionRow,
    FrameRecord,
    MetricsRecord,
    bound_text,
    execution_row,
    now_ms,
    stored_frame,
    workspace_of,
)
from sari_persistence.schema import ExecutionLogUnavailable
from sari_persistence.writer import BatchWriter, WriterStats

T = TypeVar("T")
SUMMARY_TOOL = "compaction_summary"
INSERT_EXECUTION = (f"INSERT INTO executions ({', '.join(EXECUTION_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(EXECUTION_COLUMNS))}) ON CONFLICT DO NOTHING")
Backend = SqliteBackend | PostgresBackend


@dataclass(frozen=True)
class WriterOptions:
    flush_interval_ms: int = 50
    batch_size: int = 256
    queue_size: int = 10000
    max_payload_chars: int = 8192
    response_text_chars: int = 1000

    @classmethod
    def from_settings(cls, settings: Any) -> WriterOptions:
        """From a :class:`~sari_persistence.settings.PersistenceSettings`."""
        return cls(settings.flush_interval_ms, settings.batch_size, settings.queue_size,
                   settings.max_payload_chars, settings.response_text_chars)


class ExecutionStore:
    """The execution log in ``location``: an SQLite file's path, or an opened backend.

    :param machine: the name records carry as where they came from (default: host name).
    :raises ExecutionLogUnavailable: when the file is unreadable, foreign or newer.
    """

    def __init__(self, location: Path | str | Backend, options: WriterOptions | None = None,
                 on_commit: Callable[[int], None] | None = None,
                 machine: str | None = None) -> None:
        self.backend: Backend = (location if isinstance(location, (SqliteBackend, PostgresBackend))
                                 else SqliteBackend(Path(location)))
        self.options = options or WriterOptions()
        self.machine = machine or socket.gethostname()
        try:
            self.writer = BatchWriter(
                self.backend.connect_writer, self._apply_batch,
                flush_interval=self.options.flush_interval_ms / 1000.0,
                batch_size=self.options.batch_size, queue_size=self.options.queue_size,
                on_commit=on_commit, release=self.backend.release_writer,
                transient=self.backend.transient, describe=self.backend.describe_error,
                connect_at_start=isinstance(self.backend, SqliteBackend),
                spill=None if isinstance(self.backend, SqliteBackend) else self._spill,
            )
        except BaseException:
            self.backend.close()
            raise
        self._closed = False
        if isinstance(self.backend, PostgresBackend):
            spool.replay(self, spool.folder_for(self.backend.location))

    def _spill(self, records: list[Any]) -> bool:
        spool.write(spool.folder_for(self.backend.location), records,
                    self.options.max_payload_chars, self.options.response_text_chars,
                    self.machine)
        return True

    @property
    def path(self) -> Path | None:
        """The SQLite file (None on PostgreSQL)."""
        return self.backend.path if isinstance(self.backend, SqliteBackend) else None

    @property
    def location(self) -> str:
        """Where the log is, as it may be shown (a URL's password is never in it)."""
        return self.backend.location

    # --- producers ----------------------------------------------------------------------

    def submit(self, record: Any) -> bool:
        """Enqueue a record (execution, metrics, chat session, frame) for the writer."""
        return self.writer.submit(record)

    def run_job(self, fn: Callable[[Any], T], timeout: float = 30.0) -> T:
        """Run a write transaction on the writer thread, after everything queued."""
        return self.writer.run_job(fn, timeout)

    def flush(self, timeout: float = 30.0) -> bool:
        return self.writer.flush(timeout)

    @property
    def stats(self) -> WriterStats:
        return self.writer.stats

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.writer.close()
        self.backend.close()

    @contextmanager
    def reading(self) -> Iterator[Any]:
        """A read connection for the block.

        :raises ExecutionLogUnavailable: the database does not answer now (at once when
            the writer already knows it is away: a read would only wait for it).
        """
        if self.writer.database_away:
            raise ExecutionLogUnavailable(
                f"execution log {self.location} does not answer; this server's records wait "
                "and are written when it does")
        with self.backend.reading() as conn:
            yield conn

    # --- the writer side ----------------------------------------------------------------

    def _apply_batch(self, conn: Any, batch: list[Any]) -> None:
        cap = self.options.max_payload_chars
        text_chars = self.options.response_text_chars
        next_seq: dict[str, int] = {}
        executions = []
        for item in batch:
            if isinstance(item, (ExecutionRecord, ExecutionRow)):
                executions.append(execution_row(item, cap, text_chars, self.machine))
            elif isinstance(item, spool.SpooledExecution):
                executions.append(item.row)
            elif isinstance(item, FrameRecord):
                insert_frame(conn, item, cap, next_seq)
            elif isinstance(item, ChatSessionRecord):
                ensure_chat_session(conn, item)
            elif isinstance(item, MetricsRecord):
                upsert_metrics(conn, item)
            else:
                raise TypeError(f"unknown execution log record {type(item).__name__}")
        if executions:
            # One statement for the batch: on PostgreSQL one pipelined round trip, not one each.
            conn.executemany(INSERT_EXECUTION, executions)


def ensure_chat_session(conn: Any, record: ChatSessionRecord) -> None:
    """Insert the chat session if new; fill fields it did not know yet."""
    conn.execute(
        "INSERT INTO chat_sessions (session_id, created_at, project_root, "
        "llm_provider, model) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (record.session_id, record.created_at, record.project_root, record.llm_provider,
         record.model))
    conn.execute(
        "UPDATE chat_sessions SET project_root = COALESCE(project_root, ?), "
        "llm_provider = COALESCE(llm_provider, ?), model = COALESCE(model, ?) "
        "WHERE session_id = ?",
        (record.project_root, record.llm_provider, record.model, record.session_id))


def _next_sequence(conn: Any, session_id: str, cache: dict[str, int]) -> int:
    if session_id not in cache:
        if is_postgres(conn):
            # Servers on other machines append to the same session: one at a time, until commit.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (session_id,))
        row = conn.execute("SELECT MAX(sequence_index) FROM chat_frames WHERE session_id = ?",
                           (session_id,)).fetchone()
        cache[session_id] = -1 if row[0] is None else int(row[0])
    cache[session_id] += 1
    return cache[session_id]


def insert_frame(conn: Any, frame: FrameRecord, cap: int,
                 next_seq: dict[str, int]) -> int | None:
    """Insert one frame (idempotent when it has a ``source_key``); return its sequence index."""
    if frame.source_key is not None:
        seen = conn.execute(
            "SELECT 1 FROM chat_frame_sources WHERE session_id = ? AND source_key = ?",
            (frame.session_id, frame.source_key)).fetchone()
        if seen:
            return None
    timestamp = frame.timestamp or now_ms()
    conn.execute("INSERT INTO chat_sessions (session_id, created_at) VALUES (?, ?) "
                 "ON CONFLICT DO NOTHING", (frame.session_id, timestamp))
    sequence = _next_sequence(conn, frame.session_id, next_seq)
    frame_id = conn.execute(
        "INSERT INTO chat_frames (session_id, timestamp, role, content, tool_name, "
        "execution_id, compacted, sequence_index) VALUES (?, ?, ?, ?, ?, ?, 0, ?) "
        "RETURNING id",
        (frame.session_id, timestamp, frame.role,
         bound_text(stored_frame(frame).content, cap), frame.tool_name,
         frame.execution_id, sequence)).fetchone()[0]
    if frame.source_key is not None:
        conn.execute("INSERT INTO chat_frame_sources (session_id, source_key, frame_id) "
                     "VALUES (?, ?, ?)", (frame.session_id, frame.source_key, frame_id))
    return sequence


def upsert_metrics(conn: Any, record: MetricsRecord) -> None:
    values = [record.snapshot.get(column) for column in METRIC_COLUMNS]
    values = [v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
              for v in values]
    refused = 0 if record.ok else 1
    assignments = ", ".join(f"{column} = excluded.{column}" for column in METRIC_COLUMNS)
    conn.execute(
        f"INSERT INTO session_metrics (session_key, workspace_hash, updated_at, calls_count, "
        f"refused_count, {', '.join(METRIC_COLUMNS)}, snapshot) "
        f"VALUES (?, ?, ?, 1, ?, {', '.join('?' * len(METRIC_COLUMNS))}, ?) "
        f"ON CONFLICT(session_key) DO UPDATE SET updated_at = excluded.updated_at, "
        f"calls_count = session_metrics.calls_count + 1, "
        f"refused_count = session_metrics.refused_count + excluded.refused_count, "
        f"{assignments}, snapshot = excluded.snapshot",
        (record.session_key, workspace_of(record.session_key), record.timestamp, refused,
         *values, json.dumps(record.snapshot, sort_keys=True, default=str)))


def open_store(settings: Any, on_commit: Callable[[int], None] | None = None) -> ExecutionStore:
    """The store a :class:`~sari_persistence.settings.PersistenceSettings` points at.

    ``database_url`` set: that PostgreSQL database; otherwise the SQLite file.
    """
    url = settings.database_url.get_secret_value() if settings.database_url else None
    backend: Backend
    if url:
        backend = PostgresBackend(url, pool_size=settings.pool_size,
                                  connect_timeout=settings.connect_timeout_seconds)
    else:
        backend = SqliteBackend(settings.resolved_db_path())
    return ExecutionStore(backend, WriterOptions.from_settings(settings), on_commit,
                          machine=settings.machine)


@dataclass(frozen=True)
class StoredCompaction:
    id: int
    session_id: str
    timestamp: int
    compacted_count: int
    retained_count: int
    summary: str
    resume_cursor: str | None
    summary_sequence_index: int | None = None


def store_compaction(conn: Any, session_id: str, compacted: list[int],
                     retained: list[int], summary: str, cap: int,
                     timestamp: int | None = None) -> StoredCompaction:
    """Mark the window compacted, add the ``chat_compactions`` row and the summary frame.

    :param compacted: sequence indexes of the frames leaving the window.
    :param retained: sequence indexes of the frames kept.
    """
    stamp = timestamp or now_ms()
    conn.execute("INSERT INTO chat_sessions (session_id, created_at) VALUES (?, ?) "
                 "ON CONFLICT DO NOTHING", (session_id, stamp))
    for start in range(0, len(compacted), 500):
        chunk = compacted[start:start + 500]
        conn.execute(
            f"UPDATE chat_frames SET compacted = 1 WHERE session_id = ? "
            f"AND sequence_index IN ({', '.join('?' * len(chunk))})", (session_id, *chunk))
    # The summary frame is never cut: it is what the next window starts from.
    summary_seq = insert_frame(
        conn, FrameRecord(session_id, "tool", summary, SUMMARY_TOOL, None, stamp),
        max(cap, len(summary)), {})
    cursor_value = {
        "last_compacted_sequence_index": max(compacted) if compacted else None,
        "first_retained_sequence_index": min(retained) if retained else summary_seq,
        "summary_sequence_index": summary_seq,
    }
    resume_cursor = json.dumps(cursor_value, sort_keys=True)
    compaction_id = conn.execute(
        "INSERT INTO chat_compactions (session_id, timestamp, compacted_count, retained_count, "
        "summary, resume_cursor) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (session_id, stamp, len(compacted), len(retained), summary, resume_cursor)).fetchone()[0]
    return StoredCompaction(int(compaction_id), session_id, stamp, len(compacted),
                            len(retained), summary, resume_cursor, summary_seq)
