"""Reading the execution log back: sessions, frames, executions, compactions."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from sari_core import ChatFrame

if TYPE_CHECKING:
    from sari_persistence.execution_filter import ExecutionFilter

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


def chat_sessions(conn: Any, limit: int = 100,
                  kept: ExecutionFilter | None = None) -> list[ChatSessionInfo]:
    """Chat sessions, newest first; with ``kept``, those active in its time window (a frame
    in it) and, when it names a machine or an outcome, with such executions."""
    where, params = "", []
    if kept is not None:
        frame_sql, frame_params = kept.frame_sql("f")
        if frame_sql:
            where += (f" AND EXISTS (SELECT 1 FROM chat_frames f WHERE f.session_id = "
                      f"s.session_id{frame_sql})")
            params += frame_params
        if kept.narrows_executions_only:
            execution_sql, execution_params = kept.execution_sql("e")
            where += (f" AND EXISTS (SELECT 1 FROM executions e WHERE e.session_id = "
                      f"s.session_id{execution_sql})")
            params += execution_params
    rows = conn.execute(
        "SELECT s.session_id, s.created_at, s.project_root, s.llm_provider, s.model, "
        "(SELECT COUNT(*) FROM chat_frames f WHERE f.session_id = s.session_id), "
        "(SELECT COUNT(*) FROM chat_compactions c WHERE c.session_id = s.session_id) "
        f"FROM chat_sessions s WHERE 1 = 1{where} "
        "ORDER BY s.created_at DESC, s.session_id LIMIT ?", (*params, limit))
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


def execution_sessions(conn: Any, limit: int = 100,
                       kept: ExecutionFilter | None = None) -> list[dict[str, Any]]:
    """Kernel sessions seen in ``executions`` (those ``kept`` keeps): key, the machines that
    recorded them, counts (refused by a rule, failed for want of a file or the like), first
    and last call."""
    from sari_persistence.execution_filter import FAILURES

    where, params = (kept.execution_sql() if kept is not None else ("", []))
    marks = ", ".join("?" * len(FAILURES))
    rows = conn.execute(
        "SELECT session_key, machine, COUNT(*), "
        f"SUM(CASE WHEN ok = 0 AND COALESCE(error_code, '') NOT IN ({marks}) THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN ok = 0 AND COALESCE(error_code, '') IN ({marks}) THEN 1 ELSE 0 END), "
        "MIN(timestamp), MAX(timestamp), MIN(source) "
        f"FROM executions WHERE 1 = 1{where} GROUP BY session_key, machine",
        (*FAILURES, *FAILURES, *params))
    merged: dict[str, dict[str, Any]] = {}
    for key, machine, count, refused, failed, first, last, source in rows:
        entry = merged.setdefault(key, {"session_key": key, "machines": [], "executions": 0,
                                        "refused": 0, "failed": 0, "first": first,
                                        "last": last, "source": source})
        if machine is not None:
            entry["machines"].append(machine)
        entry["executions"] += int(count)
        entry["refused"] += int(refused or 0)
        entry["failed"] += int(failed or 0)
        entry["first"], entry["last"] = min(entry["first"], first), max(entry["last"], last)
        entry["source"] = min(entry["source"], source)
    ordered = sorted(merged.values(), key=lambda e: (-e["last"], e["session_key"]))[:limit]
    for entry in ordered:
        entry["machines"].sort()
        entry["first"], entry["last"] = iso_time(entry["first"]), iso_time(entry["last"])
    return ordered


def frames(conn: Any, session_id: str, *, include_compacted: bool = True,
           limit: int | None = None, kept: ExecutionFilter | None = None) -> list[StoredFrame]:
    """A chat session's frames in sequence order (those in ``kept``'s time and tool)."""
    sql = f"SELECT {', '.join(FRAME_COLUMNS)} FROM chat_frames WHERE session_id = ?"
    params: list[Any] = [session_id]
    if not include_compacted:
        sql += " AND compacted = 0"
    if kept is not None:
        narrowed, more = kept.frame_sql()
        sql += narrowed
        params += more
    sql += " ORDER BY sequence_index, id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [StoredFrame.from_row(row) for row in conn.execute(sql, params)]


def executions(conn: Any, session: str | None, limit: int | None = None,
               kept: ExecutionFilter | None = None) -> list[StoredExecution]:
    """Executions of a kernel session key, or of a client session id (chat session id), or
    (``session`` None) of every session; those ``kept`` keeps."""
    sql = f"SELECT {', '.join(EXECUTION_READ_COLUMNS)} FROM executions WHERE 1 = 1"
    params: list[Any] = []
    if session is not None:
        sql += (" AND (session_key = ? OR session_id = ? "
                "OR id IN (SELECT execution_id FROM chat_frames WHERE session_id = ?))")
        params += [session, session, session]
    if kept is not None:
        narrowed, more = kept.execution_sql()
        sql += narrowed
        params += more
    sql += " ORDER BY timestamp, id"
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
