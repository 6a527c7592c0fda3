"""Every tool call lands in ``executions`` exactly once, bounded, off the hot path."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from sari_persistence import ExecutionLog
from sari_persistence.settings import PersistenceSettings


def rows(db_path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_every_call_served_or_refused_is_recorded_once(make_kernel, db_path: Path) -> None:
    kernel = make_kernel()
    responses = [
        kernel.execute_search({"query": "parse", "session_id": "s"}),
        kernel.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "s"}),
        kernel.execute_read({"mode": "file", "target": "src/parser.py", "start_line": 1,
                             "session_id": "s"}),
        kernel.execute_read({"mode": "file", "target": "gone.py", "session_id": "s"}),
        kernel.execute_read({"path": "src/lexer.py"}, entrypoint="read_file"),
        kernel.execute_mutation("edit", {"path": "src/lexer.py", "old_string": "'a'",
                                         "new_string": "'z'", "session_id": "s"}),
        kernel.execute_mutation("edit", {"path": "src/lexer.py", "old_string": "nope",
                                         "new_string": "x", "session_id": "s"}),
        kernel.execute_mutation("write", {"path": "new.py", "content": "x = 1\n",
                                          "session_id": "s"}),
        kernel.execute_tool("context_query", {"text": "parse", "session_id": "s"}),
        kernel.execute_tool("context_query", {"limit": 0, "session_id": "s"}),
    ]
    kernel.close()
    recorded = rows(db_path, "SELECT id, tool, ok, error_code, target, session_id, source "
                             "FROM executions")
    by_id = {row[0]: row for row in recorded}
    assert len(recorded) == len(responses)
    expected = [("search", 1, None), ("read", 1, None), ("read", 0, "INVALID_ARGS"),
                ("read", 0, "NOT_FOUND"), ("read_file", 1, None), ("edit", 1, None),
                ("edit", 0, "EDIT_NO_MATCH"), ("write", 1, None), ("context_query", 1, None),
                ("context_query", 0, "INVALID_ARGS")]
    for response, (tool, ok, code) in zip(responses, expected, strict=True):
        row = by_id[response["meta"]["execution_id"]]
        assert (row[1], row[2], row[3]) == (tool, ok, code)
        assert row[6] == "sari"
    session_ids = {row[5] for row in recorded}
    assert session_ids == {"s", None}  # the read_file call named no session


def test_payloads_are_stored_bounded(make_kernel, db_path: Path) -> None:
    kernel = make_kernel(max_payload_chars=1000)
    big = "x = 1\n" * 20000
    kernel.execute_mutation("write", {"path": "big.py", "content": big})
    kernel.execute_read({"mode": "file", "target": "big.py"})
    kernel.close()
    for arguments, response in rows(db_path, "SELECT arguments, response FROM executions"):
        assert len(arguments) <= 1100 and len(response) <= 1100
        json.loads(arguments)
        json.loads(response)
    (arguments,) = rows(db_path, "SELECT arguments FROM executions WHERE tool = 'write'")[0]
    stored = json.loads(arguments)
    assert stored["path"] == "big.py" and "[+" in stored["content"]


def test_reason_codes_and_duration_are_recorded(make_kernel, db_path: Path) -> None:
    kernel = make_kernel()
    kernel.engine.external.append(__import__("sari_core.models", fromlist=["FileChange"])
                                  .FileChange(path="README.md", abs_path="/x/README.md",
                                              old_text="a", new_text="b"))
    response = kernel.execute_search({"query": "demo"})
    kernel.close()
    ((codes, duration),) = rows(db_path, "SELECT reason_codes, duration_ms FROM executions")
    assert json.loads(codes) == response["meta"]["stabilization"]["reason_codes"]
    assert "EXTERNAL_CHANGE" in json.loads(codes)
    assert duration >= 0


def test_recording_can_be_switched_off(make_kernel, db_path: Path) -> None:
    kernel = make_kernel(record_executions=False)
    kernel.execute_search({"query": "parse"})
    kernel.close()
    assert rows(db_path, "SELECT COUNT(*) FROM executions") == [(0,)]


def test_sqlite_session_metrics_backend(make_kernel, db_path: Path) -> None:
    kernel = make_kernel(session_metrics_backend="sqlite")
    kernel.execute_search({"query": "parse", "session_id": "m"})
    kernel.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "m"})
    last = kernel.execute_read({"mode": "file", "target": "missing.py", "session_id": "m"})
    kernel.close()
    ((key, calls, refused, reads, searches, snapshot),) = rows(
        db_path, "SELECT session_key, calls_count, refused_count, reads_count, search_count, "
                 "snapshot FROM session_metrics")
    assert key.endswith(":sid:m")
    assert (calls, refused, reads, searches) == (3, 1, 1, 1)
    assert json.loads(snapshot) == last["meta"]["stabilization"]["metrics_snapshot"]


def test_memory_backend_writes_no_metrics(make_kernel, db_path: Path) -> None:
    kernel = make_kernel()
    kernel.execute_search({"query": "parse"})
    kernel.close()
    assert rows(db_path, "SELECT COUNT(*) FROM session_metrics") == [(0,)]


def test_a_full_queue_drops_and_counts_instead_of_blocking(db_path: Path) -> None:
    settings = PersistenceSettings(queue_size=5)
    with ExecutionLog.open(db_path, settings) as log:
        busy, release = threading.Event(), threading.Event()

        def block_writer(conn: sqlite3.Connection) -> None:
            busy.set()
            release.wait(10)

        blocker = threading.Thread(target=log.store.run_job, args=(block_writer,))
        blocker.start()
        assert busy.wait(10)
        chat = log.chat_session("full")  # one queued record
        accepted = [chat.user(f"m{n}") for n in range(20)]
        release.set()
        blocker.join(10)
        assert accepted == [True] * 4 + [False] * 16
        assert log.store.stats.dropped_full == 16
        assert [f.content for f in chat.frames()] == ["m0", "m1", "m2", "m3"]


def test_secrets_are_redacted_before_they_are_written(make_kernel, db_path) -> None:
    # The log redacts with sari_core's patterns itself: no other plugin need be installed.
    secret = "ghp_" + "Q" * 36
    kernel = make_kernel()
    kernel.execute_mutation("edit", {"path": "src/parser.py", "old_string": "split()",
                                     "new_string": f"split()  # token {secret}",
                                     "session_id": "s"})
    chat = ExecutionLog.of(kernel).chat_session("s")
    chat.user(f"use the token {secret} to push")
    chat.log.flush()
    with sqlite3.connect(db_path) as conn:
        stored = conn.execute("SELECT arguments || response FROM executions").fetchall()
        frames = conn.execute("SELECT content FROM chat_frames").fetchall()
    assert stored and frames
    assert all(secret not in row[0] for row in stored + frames)
    assert any("REDACTED" in row[0] for row in stored) and "REDACTED" in frames[0][0]


def test_records_still_waiting_when_closing_gives_up_are_counted_as_lost() -> None:
    import time

    from sari_persistence.writer import BatchWriter

    class Connection:
        def execute(self, sql: str, *args: object) -> None:
            pass

        def close(self) -> None:
            pass

    def slow_batch(conn: object, batch: list[object]) -> None:
        time.sleep(0.05)

    writer = BatchWriter(Connection, slow_batch, batch_size=1, queue_size=1000)
    for number in range(200):
        assert writer.submit(number)
    writer.close(timeout=0.3)
    stats = writer.stats
    assert stats.lost > 100
    assert stats.committed + stats.lost + 1 >= 200  # one batch may be mid-commit


def test_a_client_s_own_tool_calls_are_recorded_marked_native(make_kernel,
                                                               db_path: Path) -> None:
    """The audit trail holds what the agent did with its client's own tools too."""
    from sari_core.native import NativeCall, run_native_call

    kernel = make_kernel()
    run_native_call(kernel, NativeCall("claude-code", "Grep", {"pattern": "parse"}, "cc-1"))
    run_native_call(kernel, NativeCall("claude-code", "Read",
                                       {"file_path": "src/parser.py"}, "cc-1"))
    run_native_call(kernel, NativeCall("codex", "Bash", {"command": "cat src/lexer.py"}, "cx"))
    kernel.execute_read({"mode": "file", "target": "README.md"})
    kernel.close()
    recorded = rows(db_path, "SELECT tool, target, source FROM executions ORDER BY timestamp")
    assert recorded == [("search", None, "native:claude-code:Grep"),
                        ("read", "src/parser.py", "native:claude-code:Read"),
                        ("read", "src/lexer.py", "native:codex:Bash"),
                        ("read", "README.md", "sari")]
