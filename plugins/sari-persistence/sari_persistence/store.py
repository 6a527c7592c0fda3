"""The execution log store: one database file, one writer thread, one read connection.

Writes go through :class:`~sari_persistence.writer.BatchWriter` (records are
batched; compactions and ingestions run as jobs in queue order). Reads use a
separate connection — WAL lets them run while the writer commits — and call
:meth:`ExecutionStore.flush` first when they must see everything recorded so far.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sari_persistence import schema
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
    workspace_of,
)
from sari_persistence.writer import BatchWriter, WriterStats

T = TypeVar("T")
SUMMARY_TOOL = "compaction_summary"
INSERT_EXECUTION = (f"INSERT OR IGNORE INTO executions ({', '.join(EXECUTION_COLUMNS)}) "
                     f"VALUES ({', '.join('?' * len(EXECUTION_COLUMNS))})")


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
    """The execution log at ``path``.

    :raises ExecutionLogUnavailable: when the file is unreadable, foreign or newer.
    """

    def __init__(self, path: Path, options: WriterOptions | None = None,
                 on_commit: Callable[[int], None] | None = None) -> None:
        self.path = Path(path)
        self.options = options or WriterOptions()
        self._read_conn = schema.open_database(self.path)
        self._read_lock = threading.Lock()
        self.writer = BatchWriter(
            self._connect_writer, self._apply_batch,
            flush_interval=self.options.flush_interval_ms / 1000.0,
            batch_size=self.options.batch_size, queue_size=self.options.queue_size,
            on_commit=on_commit,
        )
        self._closed = False

    def _connect_writer(self) -> sqlite3.Connection:
        conn = schema.connect(self.path)
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    # --- producers ----------------------------------------------------------------------

    def submit(self, record: Any) -> bool:
        """Enqueue a record (execution, metrics, chat session, frame) for the writer."""
        return self.writer.submit(record)

    def run_job(self, fn: Callable[[sqlite3.Connection], T], timeout: float = 30.0) -> T:
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
        with self._read_lock:
            self._read_conn.close()

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The read connection, exclusively for the block (one reader at a time)."""
        with self._read_lock:
            yield self._read_conn

    # --- the writer side ----------------------------------------------------------------

    def _apply_batch(self, conn: sqlite3.Connection, batch: list[Any]) -> None:
        cap = self.options.max_payload_chars
        text_chars = self.options.response_text_chars
        next_seq: dict[str, int] = {}
        for item in batch:
            if isinstance(item, (ExecutionRecord, ExecutionRow)):
                conn.execute(INSERT_EXECUTION, execution_row(item, cap, text_chars))
            elif isinstance(item, FrameRecord):
                insert_frame(conn, item, cap, next_seq)
            elif isinstance(item, ChatSessionRecord):
                ensure_chat_session(conn, item)
            elif isinstance(item, MetricsRecord):
                upsert_metrics(conn, item)
            else:
                raise TypeError(f"unknown execution log record {type(item).__name__}")


def ensure_chat_session(conn: sqlite3.Connection, record: ChatSessionRecord) -> None:
    """Insert the chat session if new; fill fields it did not know yet."""
    conn.execute(
        "INSERT OR IGNORE INTO chat_sessions (session_id, created_at, project_root, "
        "llm_provider, model) VALUES (?, ?, ?, ?, ?)",
        (record.session_id, record.created_at, record.project_root, record.llm_provider,
         record.model))
    conn.execute(
        "UPDATE chat_sessions SET project_root = COALESCE(project_root, ?), "
        "llm_provider = COALESCE(llm_provider, ?), model = COALESCE(model, ?) "
        "WHERE session_id = ?",
        (record.project_root, record.llm_provider, record.model, record.session_id))


def _next_sequence(conn: sqlite3.Connection, session_id: str, cache: dict[str, int]) -> int:
    if session_id not in cache:
        row = conn.execute("SELECT MAX(sequence_index) FROM chat_frames WHERE session_id = ?",
                           (session_id,)).fetchone()
        cache[session_id] = -1 if row[0] is None else int(row[0])
    cache[session_id] += 1
    return cache[session_id]


def insert_frame(conn: sqlite3.Connection, frame: FrameRecord, cap: int,
                 next_seq: dict[str, int]) -> int | None:
    """Insert one frame (idempotent when it has a ``source_key``); return its sequence index."""
    if frame.source_key is not None:
        seen = conn.execute(
            "SELECT 1 FROM chat_frame_sources WHERE session_id = ? AND source_key = ?",
            (frame.session_id, frame.source_key)).fetchone()
        if seen:
            return None
    timestamp = frame.timestamp or now_ms()
    conn.execute("INSERT OR IGNORE INTO chat_sessions (session_id, created_at) VALUES (?, ?)",
                 (frame.session_id, timestamp))
    sequence = _next_sequence(conn, frame.session_id, next_seq)
    cursor = conn.execute(
        "INSERT INTO chat_frames (session_id, timestamp, role, content, tool_name, "
        "execution_id, compacted, sequence_index) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
        (frame.session_id, timestamp, frame.role, bound_text(frame.content, cap),
         frame.tool_name, frame.execution_id, sequence))
    if frame.source_key is not None:
        conn.execute("INSERT INTO chat_frame_sources (session_id, source_key, frame_id) "
                     "VALUES (?, ?, ?)", (frame.session_id, frame.source_key, cursor.lastrowid))
    return sequence


def upsert_metrics(conn: sqlite3.Connection, record: MetricsRecord) -> None:
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
        f"calls_count = calls_count + 1, refused_count = refused_count + excluded.refused_count, "
        f"{assignments}, snapshot = excluded.snapshot",
        (record.session_key, workspace_of(record.session_key), record.timestamp, refused,
         *values, json.dumps(record.snapshot, sort_keys=True, default=str)))


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


def store_compaction(conn: sqlite3.Connection, session_id: str, compacted: list[int],
                     retained: list[int], summary: str, cap: int,
                     timestamp: int | None = None) -> StoredCompaction:
    """Mark the window compacted, add the ``chat_compactions`` row and the summary frame.

    :param compacted: sequence indexes of the frames leaving the window.
    :param retained: sequence indexes of the frames kept.
    """
    stamp = timestamp or now_ms()
    conn.execute("INSERT OR IGNORE INTO chat_sessions (session_id, created_at) VALUES (?, ?)",
                 (session_id, stamp))
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
    row = conn.execute(
        "INSERT INTO chat_compactions (session_id, timestamp, compacted_count, retained_count, "
        "summary, resume_cursor) VALUES (?, ?, ?, ?, ?, ?)",
        (session_id, stamp, len(compacted), len(retained), summary, resume_cursor))
    return StoredCompaction(int(row.lastrowid or 0), session_id, stamp, len(compacted),
                            len(retained), summary, resume_cursor, summary_seq)
