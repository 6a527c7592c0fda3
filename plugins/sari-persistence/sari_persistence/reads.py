"""Reading the execution log back: sessions, frames, executions, compactions."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from sari_core import ChatFrame

FRAME_COLUMNS = ("id", "session_id", "timestamp", "role", "content", "tool_name",
                 "execution_id", "compacted", "sequence_index")
EXECUTION_READ_COLUMNS = ("id", "session_key", "session_id", "workspace_hash", "tool",
                          "arguments", "ok", "target", "error_code", "reason_codes",
                          "duration_ms", "timestamp", "response", "source", "machine")


def iso_time(ms: int) -> str:
    """Unix milliseconds -> ISO 8601 UTC with milliseconds (``...Z``)."""
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


@dataclass(frozen=True)
class StoredFrame:
    """A ``chat_frames`` row."""

    id: int
    session_id: str
    timestamp: int
    role: str
    content: str
    tool_name: str | None
    execution_id: str | None
    compacted: bool
    sequence_index: int

    @classmethod
    def from_row(cls, row: Iterable[Any]) -> StoredFrame:
        values = list(row)
        values[7] = bool(values[7])
        return cls(*values)

    def to_chat_frame(self) -> ChatFrame:
        return ChatFrame.model_validate({
            "role": self.role, "content": self.content, "tool_name": self.tool_name,
            "execution_id": self.execution_id, "timestamp": self.timestamp,
            "sequence_index": self.sequence_index})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["time"] = iso_time(self.timestamp)
        return data


@dataclass(frozen=True)
class StoredExecution:
    """An ``executions`` row, JSON columns decoded."""

    id: str
    session_key: str
    session_id: str | None
    workspace_hash: str | None
    tool: str
    arguments: Any
    ok: bool
    target: str | None
    error_code: str | None
    reason_codes: list[str]
    duration_ms: float
    timestamp: int
    response: Any
    source: str
    machine: str | None = None  # where it was recorded (None: before machines were kept)

    @classmethod
    def from_row(cls, row: Iterable[Any]) -> StoredExecution:
        values = list(row)
        values[5] = _loads(values[5])
        values[6] = bool(values[6])
        values[9] = _loads(values[9]) or []
        values[12] = _loads(values[12])
        return cls(*values)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["time"] = iso_time(self.timestamp)
        return data


def _loads(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


@dataclass(frozen=True)
class ChatSessionInfo:
    session_id: str
    created_at: int
    project_root: str | None
    llm_provider: str | None
    model: str | None
    frames: int
    compactions: int

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["created"] = iso_time(self.created_at)
        return data


def chat_sessions(conn: Any, limit: int = 100) -> list[ChatSessionInfo]:
    rows = conn.execute(
        "SELECT s.session_id, s.created_at, s.project_root, s.llm_provider, s.model, "
        "(SELECT COUNT(*) FROM chat_frames f WHERE f.session_id = s.session_id), "
        "(SELECT COUNT(*) FROM chat_compactions c WHERE c.session_id = s.session_id) "
        "FROM chat_sessions s ORDER BY s.created_at DESC, s.session_id LIMIT ?", (limit,))
    return [ChatSessionInfo(*row) for row in rows]


def chat_session(conn: Any, session_id: str) -> ChatSessionInfo | None:
    row = conn.execute(
        "SELECT s.session_id, s.created_at, s.project_root, s.llm_provider, s.model, "
        "(SELECT COUNT(*) FROM chat_frames f WHERE f.session_id = s.session_id), "
        "(SELECT COUNT(*) FROM chat_compactions c WHERE c.session_id = s.session_id) "
        "FROM chat_sessions s WHERE s.session_id = ?", (session_id,)).fetchone()
    return ChatSessionInfo(*row) if row else None


def session_recorded(conn: Any, session_id: str, ignored_tool: str) -> bool:
    """The client session id has records: a chat session, or calls (other than
    ``ignored_tool``'s) on any machine."""
    if chat_session(conn, session_id) is not None:
        return True
    row = conn.execute("SELECT 1 FROM executions WHERE session_id = ? AND tool <> ? LIMIT 1",
                       (session_id, ignored_tool)).fetchone()
    return row is not None


def execution_sessions(conn: Any, limit: int = 100) -> list[dict[str, Any]]:
    """Kernel sessions seen in ``executions``: key, counts, first and last call."""
    rows = conn.execute(
        "SELECT session_key, COUNT(*), SUM(CASE WHEN ok = 0 THEN 1 ELSE 0 END), MIN(timestamp), "
        "MAX(timestamp), MIN(source) "
        "FROM executions GROUP BY session_key ORDER BY MAX(timestamp) DESC, session_key "
        "LIMIT ?", (limit,))
    return [{"session_key": key, "executions": count, "refused": int(refused or 0),
             "first": iso_time(first), "last": iso_time(last), "source": source}
            for key, count, refused, first, last, source in rows]


def frames(conn: Any, session_id: str, *, include_compacted: bool = True,
           limit: int | None = None) -> list[StoredFrame]:
    """A chat session's frames in sequence order."""
    sql = f"SELECT {', '.join(FRAME_COLUMNS)} FROM chat_frames WHERE session_id = ?"
    if not include_compacted:
        sql += " AND compacted = 0"
    sql += " ORDER BY sequence_index, id"
    params: list[Any] = [session_id]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [StoredFrame.from_row(row) for row in conn.execute(sql, params)]


def executions(conn: Any, session: str, limit: int | None = None
               ) -> list[StoredExecution]:
    """Executions of a kernel session key, or of a client session id (chat session id)."""
    sql = (f"SELECT {', '.join(EXECUTION_READ_COLUMNS)} FROM executions "
           "WHERE session_key = ? OR session_id = ? "
           "OR id IN (SELECT execution_id FROM chat_frames WHERE session_id = ?) "
           "ORDER BY timestamp, id")
    params: list[Any] = [session, session, session]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [StoredExecution.from_row(row) for row in conn.execute(sql, params)]


def execution(conn: Any, execution_id: str) -> StoredExecution | None:
    row = conn.execute(f"SELECT {', '.join(EXECUTION_READ_COLUMNS)} FROM executions "
                       "WHERE id = ?", (execution_id,)).fetchone()
    return StoredExecution.from_row(row) if row else None


def failed_execution_ids(conn: Any, ids: Iterable[str]) -> set[str]:
    wanted = sorted(set(ids))
    failed: set[str] = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        rows = conn.execute(f"SELECT id FROM executions WHERE ok = 0 AND id IN "
                            f"({', '.join('?' * len(chunk))})", chunk)
        failed.update(row[0] for row in rows)
    return failed


@dataclass(frozen=True)
class CompactionInfo:
    id: int
    session_id: str
    timestamp: int
    compacted_count: int
    retained_count: int
    summary: str
    resume_cursor: str | None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["time"] = iso_time(self.timestamp)
        return data


_COMPACTION_SQL = ("SELECT c.id, c.session_id, c.timestamp, c.compacted_count, c.retained_count, "
                   "c.summary, c.resume_cursor FROM chat_compactions c ")


def compactions(conn: Any, session_id: str) -> list[CompactionInfo]:
    rows = conn.execute(_COMPACTION_SQL + "WHERE c.session_id = ? ORDER BY c.id", (session_id,))
    return [CompactionInfo(*row) for row in rows]


def latest_compaction(conn: Any, session_id: str) -> CompactionInfo | None:
    row = conn.execute(_COMPACTION_SQL + "WHERE c.session_id = ? ORDER BY c.id DESC LIMIT 1",
                       (session_id,)).fetchone()
    return CompactionInfo(*row) if row else None


def latest_project_compaction(conn: Any, project_root: str, since_ms: int
                              ) -> CompactionInfo | None:
    row = conn.execute(
        _COMPACTION_SQL + "JOIN chat_sessions s ON s.session_id = c.session_id "
        "WHERE s.project_root = ? AND c.timestamp >= ? ORDER BY c.timestamp DESC, c.id DESC "
        "LIMIT 1", (project_root, since_ms)).fetchone()
    return CompactionInfo(*row) if row else None


def session_metrics(conn: Any, session_key: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT calls_count, refused_count, updated_at, snapshot "
                       "FROM session_metrics WHERE session_key = ?", (session_key,)).fetchone()
    if row is None:
        return None
    return {"calls_count": row[0], "refused_count": row[1], "updated_at": row[2],
            "snapshot": json.loads(row[3])}
