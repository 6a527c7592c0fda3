"""Claude Code: transcript ingestion, PreCompact and SessionStart(compact) through `sari hook`.

The fixture follows Claude Code's transcript format (one JSON object per line:
``type``, ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``message`` with
text / thinking / tool_use / tool_result / image blocks, plus summary, meta,
snapshot and system lines, and a last line still being written) and the hooks'
documented stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
``trigger`` / ``source``) and stdout (``hookSpecificOutput.additionalContext``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sari_core.models import ClientHookEvent
from sari_persistence.claude_code import ingest_transcript
from sari_persistence.plugin import PersistencePlugin
from sari_persistence.store import ExecutionStore
from sari_persistence.summary import HONESTY_BLOCK
from sari_persistence.transcript import read_transcript

FIXTURE = Path(__file__).parent / "fixtures" / "claude_code_transcript.jsonl"
SESSION = "5b1f2c7e-8d4a-4f3b-9a61-0c2d3e4f5a6b"
CWD = "/home/dev/shop"


def table_rows(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(db_path)
    rows = {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("chat_sessions", "chat_frames", "chat_frame_sources", "executions",
                          "chat_compactions")}
    rows["fts"] = conn.execute("SELECT rowid, content FROM chat_frames_fts ORDER BY 1").fetchall()
    conn.close()
    return rows


def ingest(db_path: Path) -> None:
    transcript = read_transcript(FIXTURE, SESSION, CWD)
    store = ExecutionStore(db_path)
    try:
        store.run_job(lambda conn: ingest_transcript(conn, transcript, 8192))
    finally:
        store.close()


def test_ingesting_the_transcript_twice_yields_the_same_rows(db_path: Path) -> None:
    ingest(db_path)
    first = table_rows(db_path)
    ingest(db_path)
    assert table_rows(db_path) == first
    assert len(first["chat_frames"]) == 13
    assert len(first["fts"]) == 13


def test_tool_use_and_tool_result_blocks_become_tool_frames(db_path: Path) -> None:
    ingest(db_path)
    conn = sqlite3.connect(db_path)
    frames = conn.execute("SELECT sequence_index, role, tool_name, execution_id, content "
                          "FROM chat_frames ORDER BY sequence_index").fetchall()
    session = conn.execute("SELECT * FROM chat_sessions").fetchall()
    executions = conn.execute("SELECT id, tool, ok, error_code, target, session_key, source "
                              "FROM executions ORDER BY timestamp").fetchall()
    conn.close()
    assert session == [(SESSION, 1768035600000, CWD, "anthropic", "claude-sonnet-4-5-20250929")]
    shape = [(role, tool, execution) for _, role, tool, execution, _ in frames]
    assert shape == [
        ("user", None, None),
        ("assistant", None, None),
        ("tool", "Read", "toolu_01Read"), ("tool", "Read", "toolu_01Read"),
        ("assistant", None, None),
        ("tool", "Edit", "toolu_02Edit"), ("tool", "Edit", "toolu_02Edit"),
        ("tool", "Bash", "toolu_03Bash"), ("tool", "Bash", "toolu_03Bash"),
        ("tool", "mcp__sari__search", "toolu_04Sari"),
        ("tool", "mcp__sari__search", "toolu_04Sari"),
        ("assistant", None, None),
        ("user", None, None),
    ]
    contents = [content for *_, content in frames]
    assert contents[0].startswith("The cart total ignores discounts.")
    assert json.loads(contents[5])["file_path"] == f"{CWD}/src/cart/totals.py"
    assert "ex-1a2b3c4d-12" in contents[10]  # Sari's own execution id stays searchable
    assert contents[12] == "Also show me the screenshot diff\n[image]"
    assert not any("secret reasoning" in content for content in contents)  # no thinking
    assert not any("/clear" in content for content in contents)  # no meta lines
    assert executions == [
        ("toolu_01Read", "Read", 1, None, f"{CWD}/src/cart/totals.py", f"claude-code:{SESSION}",
         "claude-code"),
        ("toolu_02Edit", "Edit", 1, None, f"{CWD}/src/cart/totals.py", f"claude-code:{SESSION}",
         "claude-code"),
        ("toolu_03Bash", "Bash", 0, "TOOL_ERROR", "pytest -q tests/test_totals.py",
         f"claude-code:{SESSION}", "claude-code"),
        ("toolu_04Sari", "mcp__sari__search", 1, None, None, f"claude-code:{SESSION}",
         "claude-code"),
    ]


def hook_event(name: str, payload: dict[str, Any]) -> ClientHookEvent:
    return ClientHookEvent(client="claude-code", event=name, payload=payload, workspace=CWD)


def pre_compact_input(trigger: str = "auto") -> dict[str, Any]:
    return {"session_id": SESSION, "transcript_path": str(FIXTURE), "cwd": CWD,
            "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": trigger,
            "custom_instructions": ""}


def session_start_input(source: str) -> dict[str, Any]:
    return {"session_id": SESSION, "transcript_path": str(FIXTURE), "cwd": CWD,
            "permission_mode": "default", "hook_event_name": "SessionStart", "source": source,
            "model": "claude-sonnet-4-5-20250929"}


EXPECTED_SUMMARY = "\n".join([
    "=== COMPACTION SUMMARY ===",
    "Goal: Also show me the screenshot diff [image]",
    "Current task: Next: sum cart.discounts in totals.py.",
    "Files modified: [src/cart/totals.py]",
    "Files mentioned: [src/cart/model.py, src/cart/totals.py, tests/test_totals.py, totals.py]",
    "Files pending: [src/cart/model.py]",
    "Key tool executions: [toolu_01Read, toolu_02Edit, toolu_03Bash, toolu_04Sari]",
    *HONESTY_BLOCK,
])


def test_pre_compact_stores_the_compaction_once(db_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PERSISTENCE__DB_PATH", str(db_path))
    plugin = PersistencePlugin()
    assert plugin.on_client_hook(hook_event("pre-compact", pre_compact_input())) is None
    assert plugin.on_client_hook(hook_event("pre-compact", pre_compact_input())) is None
    conn = sqlite3.connect(db_path)
    compactions = conn.execute("SELECT session_id, compacted_count, retained_count, summary "
                               "FROM chat_compactions").fetchall()
    marks = conn.execute("SELECT compacted, COUNT(*) FROM chat_frames GROUP BY compacted "
                         "ORDER BY compacted").fetchall()
    conn.close()
    assert compactions == [(SESSION, 13, 0, EXPECTED_SUMMARY)]
    assert marks == [(0, 1), (1, 13)]  # the summary frame is the only live one
    started = plugin.on_client_hook(hook_event("session-start", session_start_input("compact")))
    assert started is not None and started.additional_context == EXPECTED_SUMMARY
    assert plugin.on_client_hook(hook_event("session-start", session_start_input("startup"))) \
        is None


def run_hook(event: str, payload: dict[str, Any], db_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SARI_PLUGINS": "persistence",
           "SARI_PERSISTENCE__DB_PATH": str(db_path)}
    return subprocess.run([sys.executable, "-m", "sari_core.cli.main", "hook", "claude-code",
                           event], input=json.dumps(payload), capture_output=True, text=True,
                          env=env, timeout=60, cwd=Path(__file__).parent)


def test_sari_hook_session_start_prints_the_documented_json(db_path: Path) -> None:
    pre = run_hook("pre-compact", pre_compact_input("manual"), db_path)
    assert pre.returncode == 0, pre.stderr
    assert pre.stdout == ""
    started = run_hook("session-start", session_start_input("compact"), db_path)
    assert started.returncode == 0, started.stderr
    output = json.loads(started.stdout)
    assert output == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": EXPECTED_SUMMARY}}
    fresh = run_hook("session-start", session_start_input("startup"), db_path)
    assert fresh.returncode == 0 and fresh.stdout == ""


def test_session_start_without_a_log_prints_nothing(tmp_path: Path) -> None:
    started = run_hook("session-start", session_start_input("compact"), tmp_path / "none.db")
    assert started.returncode == 0, started.stderr
    assert started.stdout == ""
    assert not (tmp_path / "none.db").exists()
