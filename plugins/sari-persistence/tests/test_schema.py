"""The database file: the exact chat tables, WAL, versions, migrations, refusals."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from sari_persistence import ExecutionLog, ExecutionLogUnavailable
from sari_persistence.schema import SCHEMA_VERSION, open_database

SEED_COLUMNS = {
    "chat_sessions": [("session_id", "TEXT", 1, 1), ("created_at", "INTEGER", 1, 0),
                      ("project_root", "TEXT", 0, 0), ("llm_provider", "TEXT", 0, 0),
                      ("model", "TEXT", 0, 0)],
    "chat_frames": [("id", "INTEGER", 0, 1), ("session_id", "TEXT", 1, 0),
                    ("timestamp", "INTEGER", 1, 0), ("role", "TEXT", 1, 0),
                    ("content", "TEXT", 1, 0), ("tool_name", "TEXT", 0, 0),
                    ("execution_id", "TEXT", 0, 0), ("compacted", "BOOLEAN", 1, 0),
                    ("sequence_index", "INTEGER", 1, 0)],
    "chat_compactions": [("id", "INTEGER", 0, 1), ("session_id", "TEXT", 1, 0),
                         ("timestamp", "INTEGER", 1, 0), ("compacted_count", "INTEGER", 1, 0),
                         ("retained_count", "INTEGER", 1, 0), ("summary", "TEXT", 1, 0),
                         ("resume_cursor", "TEXT", 0, 0)],
}
SEED_INDEXES = {
    "idx_chat_frames_session_timestamp": ("chat_frames", ["session_id", "timestamp"]),
    "idx_chat_frames_session_seq": ("chat_frames", ["session_id", "sequence_index"]),
    "idx_chat_frames_execution_id": ("chat_frames", ["execution_id"]),
    "idx_chat_compactions_session_timestamp": ("chat_compactions", ["session_id", "timestamp"]),
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_chat_tables_have_exactly_the_seeds_columns_and_indexes(db_path: Path) -> None:
    open_database(db_path).close()
    conn = sqlite3.connect(db_path)
    for table, columns in SEED_COLUMNS.items():
        info = [(name, kind, notnull, pk) for _, name, kind, notnull, _, pk
                in conn.execute(f"PRAGMA table_info({table})")]
        assert info == columns, table
    frames_fk = conn.execute("PRAGMA foreign_key_list(chat_frames)").fetchall()
    assert [(row[2], row[3], row[4]) for row in frames_fk] == [
        ("chat_sessions", "session_id", "session_id")]
    assert conn.execute("SELECT dflt_value FROM pragma_table_info('chat_frames') "
                        "WHERE name = 'compacted'").fetchone() == ("0",)
    for index, (table, columns) in SEED_INDEXES.items():
        assert conn.execute("SELECT tbl_name FROM sqlite_master WHERE type = 'index' "
                            "AND name = ?", (index,)).fetchone() == (table,)
        assert [row[2] for row in conn.execute(f"PRAGMA index_info({index})")] == columns
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"executions", "session_metrics", "chat_frames_fts"} <= tables
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    conn.close()


def test_migration_from_the_first_version_keeps_the_data(db_path: Path) -> None:
    open_database(db_path, target=1).close()
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone() == (1,)
    conn.execute("INSERT INTO chat_sessions VALUES ('old', 1000, '/p', 'acme', 'm')")
    conn.execute("INSERT INTO chat_frames (session_id, timestamp, role, content, tool_name, "
                 "execution_id, compacted, sequence_index) VALUES "
                 "('old', 1001, 'user', 'rename the widget factory', NULL, NULL, 1, 0), "
                 "('old', 1002, 'tool', '{\"ok\": true}', 'edit', 'ex-ab-1', 0, 1)")
    conn.execute("INSERT INTO chat_compactions (session_id, timestamp, compacted_count, "
                 "retained_count, summary, resume_cursor) VALUES ('old', 1003, 1, 1, 'S', NULL)")
    conn.execute("INSERT INTO executions (id, session_key, tool, arguments, ok, target, "
                 "error_code, reason_codes, duration_ms, timestamp, response) VALUES "
                 "('ex-ab-1', 'ws:0123456789ab:sid:old', 'edit', '{}', 1, 'a.py', NULL, '[]', "
                 "1.5, 1002, '{}')")
    conn.commit()
    conn.close()

    with ExecutionLog.open(db_path) as log:
        frames = log.frames("old")
        assert [(f.content, f.compacted) for f in frames] == [
            ("rename the widget factory", True), ('{"ok": true}', False)]
        assert [c.summary for c in log.compactions("old")] == ["S"]
        (execution,) = log.executions("old")
        assert (execution.id, execution.session_id, execution.workspace_hash, execution.source) \
            == ("ex-ab-1", "old", "0123456789ab", "sari")
        # The full-text index was built over the frames that were already there.
        page = log.query(text="widget fact")
        assert [f.content for f in page.frames] == ["rename the widget factory"]
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()


def test_a_newer_schema_is_reported_and_left_untouched(db_path: Path) -> None:
    open_database(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = digest(db_path)
    with pytest.raises(ExecutionLogUnavailable, match="newer than this sari-persistence"):
        ExecutionLog.open(db_path)
    assert digest(db_path) == before


def test_a_file_that_is_not_a_database_is_reported_and_left_untouched(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"these are my notes, not a database\n" * 100)
    before = digest(db_path)
    with pytest.raises(ExecutionLogUnavailable, match="not an SQLite database"):
        ExecutionLog.open(db_path)
    assert digest(db_path) == before
    assert sorted(p.name for p in db_path.parent.iterdir()) == [db_path.name]


def test_a_corrupt_database_is_reported_and_left_untouched(db_path: Path) -> None:
    open_database(db_path).close()
    data = bytearray(db_path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wipe the schema page, keep the header
    db_path.write_bytes(bytes(data))
    before = digest(db_path)
    with pytest.raises(ExecutionLogUnavailable):
        ExecutionLog.open(db_path)
    assert digest(db_path) == before


def test_someone_elses_database_is_not_taken_over(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    before = digest(db_path)
    with pytest.raises(ExecutionLogUnavailable, match="not a Sari execution log"):
        ExecutionLog.open(db_path)
    assert digest(db_path) == before


def test_the_kernel_keeps_serving_when_the_log_is_unusable(make_kernel, db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"garbage" * 10)
    kernel = make_kernel()
    assert kernel.execute_search({"query": "parse"})["ok"] is True
    refused = kernel.execute_tool("context_query", {"text": "parse"})
    assert refused["ok"] is False
    assert refused["error"]["code"] == "EXECUTION_LOG_UNAVAILABLE"
    assert "not an SQLite database" in refused["error"]["message"]
    assert db_path.read_bytes() == b"garbage" * 10
