"""The execution log's schema, its versions, and opening the file safely.

``PRAGMA user_version`` holds the schema version. Opening a database runs the
forward migrations it lacks, each version in one transaction. A file that is not
an SQLite database, is not a Sari execution log, or was written by a newer
schema is reported with :class:`ExecutionLogUnavailable` and left untouched.

The three chat tables and their four indexes are fixed, column for column.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from sari_core import private_file

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000

# Version 1: the chat tables and the executions log.
_V1: tuple[str, ...] = (
    """CREATE TABLE chat_sessions (
        session_id TEXT PRIMARY KEY NOT NULL,
        created_at INTEGER NOT NULL,
        project_root TEXT,
        llm_provider TEXT,
        model TEXT
    )""",
    """CREATE TABLE chat_frames (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tool_name TEXT,
        execution_id TEXT,
        compacted BOOLEAN NOT NULL DEFAULT 0,
        sequence_index INTEGER NOT NULL,
        FOREIGN KEY (session_id) REFERENCES chat_sessions(session_id)
    )""",
    """CREATE TABLE chat_compactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        compacted_count INTEGER NOT NULL,
        retained_count INTEGER NOT NULL,
        summary TEXT NOT NULL,
        resume_cursor TEXT,
        FOREIGN KEY (session_id) REFERENCES chat_sessions(session_id)
    )""",
    "CREATE INDEX idx_chat_frames_session_timestamp ON chat_frames (session_id, timestamp)",
    "CREATE INDEX idx_chat_frames_session_seq ON chat_frames (session_id, sequence_index)",
    "CREATE INDEX idx_chat_frames_execution_id ON chat_frames (execution_id)",
    "CREATE INDEX idx_chat_compactions_session_timestamp "
    "ON chat_compactions (session_id, timestamp)",
    """CREATE TABLE executions (
        id TEXT PRIMARY KEY NOT NULL,
        session_key TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        ok INTEGER NOT NULL,
        target TEXT,
        error_code TEXT,
        reason_codes TEXT NOT NULL,
        duration_ms REAL NOT NULL,
        timestamp INTEGER NOT NULL,
        response TEXT
    )""",
    "CREATE INDEX idx_executions_session_timestamp ON executions (session_key, timestamp)",
)

# Version 2: who/where columns on executions, full-text search over frames, idempotent
# transcript ingestion, and the opt-in session metrics backend.
_V2: tuple[str, ...] = (
    "ALTER TABLE executions ADD COLUMN session_id TEXT",
    "ALTER TABLE executions ADD COLUMN workspace_hash TEXT",
    "ALTER TABLE executions ADD COLUMN source TEXT NOT NULL DEFAULT 'sari'",
    # Keys look like ws:<12 hex>:sid:<id> or ws:<12 hex>:conn:<uuid>.
    "UPDATE executions SET workspace_hash = substr(session_key, 4, 12) "
    "WHERE session_key LIKE 'ws:%'",
    "UPDATE executions SET session_id = substr(session_key, 21) "
    "WHERE session_key LIKE 'ws:%' AND substr(session_key, 16, 5) = ':sid:'",
    "CREATE INDEX idx_executions_workspace_timestamp ON executions (workspace_hash, timestamp)",
    """CREATE VIRTUAL TABLE chat_frames_fts USING fts5(
        content, content='chat_frames', content_rowid='id', tokenize='trigram'
    )""",
    """CREATE TRIGGER chat_frames_fts_insert AFTER INSERT ON chat_frames BEGIN
        INSERT INTO chat_frames_fts(rowid, content) VALUES (new.id, new.content);
    END""",
    """CREATE TRIGGER chat_frames_fts_delete AFTER DELETE ON chat_frames BEGIN
        INSERT INTO chat_frames_fts(chat_frames_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
    END""",
    """CREATE TRIGGER chat_frames_fts_update AFTER UPDATE OF content ON chat_frames BEGIN
        INSERT INTO chat_frames_fts(chat_frames_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
        INSERT INTO chat_frames_fts(rowid, content) VALUES (new.id, new.content);
    END""",
    "INSERT INTO chat_frames_fts(chat_frames_fts) VALUES ('rebuild')",
    """CREATE TABLE chat_frame_sources (
        session_id TEXT NOT NULL,
        source_key TEXT NOT NULL,
        frame_id INTEGER NOT NULL,
        PRIMARY KEY (session_id, source_key)
    ) WITHOUT ROWID""",
    """CREATE TABLE session_metrics (
        session_key TEXT PRIMARY KEY NOT NULL,
        workspace_hash TEXT,
        updated_at INTEGER NOT NULL,
        calls_count INTEGER NOT NULL DEFAULT 0,
        refused_count INTEGER NOT NULL DEFAULT 0,
        reads_count INTEGER,
        reads_lines_total INTEGER,
        reads_chars_total INTEGER,
        search_count INTEGER,
        read_after_search_ratio REAL,
        avg_read_span REAL,
        max_read_span INTEGER,
        preview_degraded_count INTEGER,
        snapshot TEXT NOT NULL
    )""",
)

# Version 3: the machine an execution came from (many servers on many machines share one
# database), and executions found by client session id on any machine. The chat tables
# keep their fixed layout; a frame's session names its project.
V3: tuple[str, ...] = (
    "ALTER TABLE executions ADD COLUMN machine TEXT",
    "CREATE INDEX idx_executions_session_id_timestamp ON executions (session_id, timestamp)",
)

MIGRATIONS: dict[int, tuple[str, ...]] = {1: _V1, 2: _V2, 3: V3}
SCHEMA_VERSION = max(MIGRATIONS)
OWN_TABLES = frozenset({"chat_sessions", "chat_frames", "chat_compactions", "executions"})


class ExecutionLogUnavailable(Exception):
    """The execution log cannot be used; the file was left exactly as it was."""


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ExecutionLogUnavailable(f"execution log {path} cannot be read: {exc}") from exc
    # An empty file is a valid, empty database; anything else must start with the header.
    if header and header != SQLITE_HEADER:
        raise ExecutionLogUnavailable(
            f"execution log {path} is not an SQLite database; it was left untouched. "
            "Move it away, or point [tool.sari.persistence] db_path at another file.")


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection with Sari's pragmas; ``readonly`` never creates or changes the file."""
    if readonly:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                               isolation_level=None, check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000,
                               isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _inspect(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema version, after checking it is ours and not newer."""
    try:
        version = user_version(conn)
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise ExecutionLogUnavailable(
            f"execution log {path} is unreadable ({exc}); it was left untouched. "
            "Move it away, or point [tool.sari.persistence] db_path at another file.") from exc
    if version > SCHEMA_VERSION:
        raise ExecutionLogUnavailable(
            f"execution log {path} has schema version {version}, newer than this "
            f"sari-persistence understands ({SCHEMA_VERSION}); it was left untouched. "
            "Upgrade sari-persistence, or point db_path at another file.")
    if version == 0 and tables:
        raise ExecutionLogUnavailable(
            f"{path} is an SQLite database but not a Sari execution log (tables: "
            f"{', '.join(sorted(tables))}); it was left untouched. Point db_path elsewhere.")
    if version > 0 and not tables >= OWN_TABLES:
        raise ExecutionLogUnavailable(
            f"execution log {path} claims schema version {version} but lacks tables "
            f"{', '.join(sorted(OWN_TABLES - tables))}; it was left untouched.")
    return version


def migrate(conn: sqlite3.Connection, path: Path, *, target: int = SCHEMA_VERSION) -> int:
    """Apply the missing forward migrations up to ``target``; return the version reached."""
    version = _inspect(conn, path)
    while version < target:
        step = version + 1
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            current = user_version(conn)
            if current >= step:
                conn.execute("COMMIT")
                version = current
                continue
            _run(conn, MIGRATIONS[step])
            conn.execute(f"PRAGMA user_version = {step}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        version = step
    return version


def _run(conn: sqlite3.Connection, statements: Sequence[str]) -> None:
    for statement in statements:
        conn.execute(statement)


def open_database(path: Path, *, target: int = SCHEMA_VERSION) -> sqlite3.Connection:
    """Open (creating if missing) and migrate the execution log at ``path``.

    :raises ExecutionLogUnavailable: unreadable, foreign or newer-schema file (left untouched).
    """
    if path.exists():
        _check_header(path)
    try:
        private_file(path)  # 0600 in a 0700 folder; SQLite gives -wal and -shm the same mode
    except OSError as exc:
        raise ExecutionLogUnavailable(
            f"execution log {path} cannot be created: {exc.strerror}") from exc
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        raise ExecutionLogUnavailable(f"execution log {path} cannot be opened: {exc}") from exc
    try:
        _inspect(conn, path)
        if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise ExecutionLogUnavailable(f"execution log {path}: WAL mode is not available")
        # WAL + NORMAL: a commit survives a killed process; only power loss may drop the last one.
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn, path, target=target)
    except ExecutionLogUnavailable:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        raise ExecutionLogUnavailable(f"execution log {path} cannot be migrated: {exc}") from exc
    return conn
