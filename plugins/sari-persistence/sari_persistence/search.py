"""Searching past context: frames (FTS5, trigram) and executions, filtered and paged.

On SQLite, text of three characters or more goes through the ``chat_frames_fts``
index (a literal substring match, case-insensitive); shorter text falls back to
``LIKE``. On PostgreSQL it is ``ILIKE`` (served by a trigram index when there is one).
Results are newest first, ties broken by id, so pages are stable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sari_persistence.dialect import is_postgres, like
from sari_persistence.reads import (
    EXECUTION_READ_COLUMNS,
    FRAME_COLUMNS,
    StoredExecution,
    StoredFrame,
)

_TRIGRAM_MIN = 3


@dataclass(frozen=True)
class Scope:
    """Which sessions a query may see.

    :ivar chat_session_ids: frames of these chat sessions (None: see ``project_root``).
    :ivar project_root: frames of chat sessions of this project (canonical root).
    :ivar session_keys: executions of these kernel session keys.
    :ivar workspace_hash: executions of this workspace.
    :ivar everything: no restriction (library use of a log one owns).
    """

    chat_session_ids: tuple[str, ...] | None = None
    project_root: str | None = None
    session_keys: tuple[str, ...] = ()
    workspace_hash: str | None = None
    everything: bool = False
    name: str = "workspace"


@dataclass(frozen=True)
class Query:
    text: str | None = None
    role: str | None = None
    tool: str | None = None
    execution_id: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    include_compacted: bool = True
    hidden_tools: tuple[str, ...] = ()  # these tools' frames and executions are left out
    limit: int = 10
    offset: int = 0


@dataclass
class Page:
    frames: list[StoredFrame] = field(default_factory=list)
    executions: list[StoredExecution] = field(default_factory=list)
    total_frames: int = 0
    total_executions: int = 0


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _fts_phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def tool_clause(column: str, tool: str, params: list[Any]) -> str:
    """``column`` names ``tool``; its parameters are appended to ``params``."""
    # A client names Sari's tools mcp__<server>__<tool>; match either spelling.
    params.extend([tool, "%\\_\\_" + tool.replace("_", "\\_")])
    return f"({column} = ? OR {column} LIKE ? ESCAPE '\\')"


def _frame_where(query: Query, scope: Scope, conn: Any) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if scope.chat_session_ids is not None:
        if not scope.chat_session_ids:
            clauses.append("1 = 0")
        else:
            clauses.append(f"f.session_id IN ({', '.join('?' * len(scope.chat_session_ids))})")
            params.extend(scope.chat_session_ids)
    elif scope.project_root is not None:
        clauses.append("f.session_id IN (SELECT session_id FROM chat_sessions "
                       "WHERE project_root = ?)")
        params.append(scope.project_root)
    if query.text:
        if len(query.text) >= _TRIGRAM_MIN and not is_postgres(conn):
            clauses.append("f.id IN (SELECT rowid FROM chat_frames_fts "
                           "WHERE chat_frames_fts MATCH ?)")
            params.append(_fts_phrase(query.text))
        else:
            clauses.append(f"f.content {like(conn)} ? ESCAPE '\\'")
            params.append(_like(query.text))
    if query.role:
        clauses.append("f.role = ?")
        params.append(query.role)
    if query.tool:
        clauses.append(tool_clause("f.tool_name", query.tool, params))
    for tool in query.hidden_tools:
        clauses.append(f"(f.tool_name IS NULL OR NOT {tool_clause('f.tool_name', tool, params)})")
    _narrow_to(query, "f.execution_id", "f.timestamp", clauses, params)
    if not query.include_compacted:
        clauses.append("f.compacted = 0")
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _narrow_to(query: Query, execution_column: str, time_column: str, clauses: list[str],
               params: list[Any]) -> None:
    """One execution's rows, and the time window, when the query names them."""
    if query.execution_id:
        clauses.append(f"{execution_column} = ?")
        params.append(query.execution_id)
    if query.since_ms is not None:
        clauses.append(f"{time_column} >= ?")
        params.append(query.since_ms)
    if query.until_ms is not None:
        clauses.append(f"{time_column} <= ?")
        params.append(query.until_ms)


def _execution_where(query: Query, scope: Scope, conn: Any) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    visible: list[str] = []
    if scope.session_keys:
        visible.append(f"e.session_key IN ({', '.join('?' * len(scope.session_keys))})")
        params.extend(scope.session_keys)
    if scope.chat_session_ids:
        marks = ", ".join("?" * len(scope.chat_session_ids))
        visible.append(f"e.session_id IN ({marks})")
        visible.append(f"e.id IN (SELECT execution_id FROM chat_frames WHERE session_id IN "
                       f"({marks}) AND execution_id IS NOT NULL)")
        params.extend(scope.chat_session_ids)
        params.extend(scope.chat_session_ids)
    if scope.workspace_hash is not None and scope.chat_session_ids is None:
        visible.append("e.workspace_hash = ?")
        params.append(scope.workspace_hash)
    if scope.everything:
        visible = ["1 = 1"]
    clauses.append("(" + " OR ".join(visible) + ")" if visible else "1 = 0")
    if query.text:
        pattern, op = _like(query.text), like(conn)
        clauses.append(f"(e.id = ? OR e.tool {op} ? ESCAPE '\\' OR e.target {op} ? ESCAPE '\\' "
                       f"OR e.arguments {op} ? ESCAPE '\\' OR e.response {op} ? ESCAPE '\\')")
        params.extend([query.text, pattern, pattern, pattern, pattern])
    if query.tool:
        clauses.append(tool_clause("e.tool", query.tool, params))
    for tool in query.hidden_tools:
        clauses.append(f"NOT {tool_clause('e.tool', tool, params)}")
    _narrow_to(query, "e.id", "e.timestamp", clauses, params)
    return " WHERE " + " AND ".join(clauses), params


def search(conn: Any, query: Query, scope: Scope, *,
           want_frames: bool = True, want_executions: bool = True) -> Page:
    """One page of frames and one page of executions (same ``limit``/``offset``)."""
    page = Page()
    if want_frames:
        where, params = _frame_where(query, scope, conn)
        page.total_frames = int(conn.execute(
            f"SELECT COUNT(*) FROM chat_frames f{where}", params).fetchone()[0])
        columns = ", ".join(f"f.{column}" for column in FRAME_COLUMNS)
        rows = conn.execute(
            f"SELECT {columns} FROM chat_frames f{where} "
            "ORDER BY f.timestamp DESC, f.id DESC LIMIT ? OFFSET ?",
            [*params, query.limit, query.offset])
        page.frames = [StoredFrame.from_row(row) for row in rows]
    # Executions have no role: a role other than tool asks for frames only.
    if want_executions and query.role in (None, "tool"):
        where, params = _execution_where(query, scope, conn)
        page.total_executions = int(conn.execute(
            f"SELECT COUNT(*) FROM executions e{where}", params).fetchone()[0])
        columns = ", ".join(f"e.{column}" for column in EXECUTION_READ_COLUMNS)
        rows = conn.execute(
            f"SELECT {columns} FROM executions e{where} "
            "ORDER BY e.timestamp DESC, e.id DESC LIMIT ? OFFSET ?",
            [*params, query.limit, query.offset])
        page.executions = [StoredExecution.from_row(row) for row in rows]
    return page
