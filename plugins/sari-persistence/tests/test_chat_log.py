"""Chat sessions, frames, execution linkage and compaction through the library API."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sari_persistence import ExecutionLog
from sari_persistence.settings import PersistenceSettings
from sari_persistence.summary import HONESTY_BLOCK


def test_frames_read_back_in_recording_order(db_path: Path) -> None:
    with ExecutionLog.open(db_path) as log:
        chat = log.chat_session("chat-1", project_root="/tmp/proj", llm_provider="acme",
                                model="m-1")
        chat.user("first")
        chat.assistant("second")
        chat.tool("read", '{"ok": true}', execution_id="ex-1")
        for number in range(50):
            chat.user(f"message {number}")
        frames = chat.frames()
        sessions = log.sessions()
    assert [f.sequence_index for f in frames] == list(range(53))
    assert [f.content for f in frames[:3]] == ["first", "second", '{"ok": true}']
    assert [f.role for f in frames[:3]] == ["user", "assistant", "tool"]
    assert frames[-1].content == "message 49"
    assert all(not f.compacted for f in frames)
    assert [(s.session_id, s.project_root, s.llm_provider, s.model, s.frames)
            for s in sessions] == [("chat-1", "/tmp/proj", "acme", "m-1", 53)]


def test_frames_survive_reopening_and_continue_their_sequence(db_path: Path) -> None:
    with ExecutionLog.open(db_path) as log:
        log.chat_session("c").user("one")
    with ExecutionLog.open(db_path) as log:
        chat = log.chat_session("c")
        chat.assistant("two")
        assert [(f.sequence_index, f.content) for f in chat.frames()] == [(0, "one"), (1, "two")]


def test_tool_frames_link_to_the_kernels_executions(make_kernel, db_path: Path) -> None:
    kernel = make_kernel()
    edit = kernel.execute_mutation("edit", {"path": "src/parser.py", "old_string": "split()",
                                            "new_string": "split(',')", "session_id": "loop"})
    refused = kernel.execute_read({"mode": "file", "target": "missing.py", "session_id": "loop"})
    log = ExecutionLog.of(kernel)
    chat = log.chat_session("loop", project_root="/tmp/sari-persistence-ws")
    chat.tool("edit", json.dumps(edit), execution_id=edit["meta"]["execution_id"])
    chat.tool("read", json.dumps(refused), execution_id=refused["meta"]["execution_id"])
    frames = chat.frames()
    executions = {e.id: e for e in log.executions("loop")}
    assert [f.execution_id for f in frames] == [edit["meta"]["execution_id"],
                                               refused["meta"]["execution_id"]]
    linked = [executions[f.execution_id] for f in frames]
    assert [(e.tool, e.ok, e.error_code) for e in linked] == [("edit", True, None),
                                                             ("read", False, "NOT_FOUND")]
    assert linked[0].session_key.endswith(":sid:loop") and linked[0].session_id == "loop"
    with sqlite3.connect(db_path) as conn:
        joined = conn.execute(
            "SELECT f.sequence_index, e.tool FROM chat_frames f JOIN executions e "
            "ON e.id = f.execution_id WHERE f.session_id = 'loop' ORDER BY 1").fetchall()
    assert joined == [(0, "edit"), (1, "read")]


def test_compaction_marks_the_window_and_stores_the_summary(make_kernel) -> None:
    kernel = make_kernel()
    log = ExecutionLog.of(kernel)
    chat = log.chat_session("c2", project_root="/tmp/sari-persistence-ws")
    for number in range(8):
        chat.user(f"step {number} in src/parser.py")
    outcome = chat.compact(keep_last=3, kernel=kernel)
    frames = chat.frames()
    assert [f.compacted for f in frames[:8]] == [True] * 5 + [False] * 3
    assert frames[-1].role == "tool" and frames[-1].tool_name == "compaction_summary"
    assert frames[-1].content == outcome.summary and not frames[-1].compacted
    assert outcome.compacted_count == 5 and outcome.retained_count == 3
    stored = log.compactions("c2")
    assert len(stored) == 1
    assert (stored[0].compacted_count, stored[0].retained_count) == (5, 3)
    assert stored[0].summary == outcome.summary
    assert json.loads(stored[0].resume_cursor or "{}") == {
        "first_retained_sequence_index": 5, "last_compacted_sequence_index": 4,
        "summary_sequence_index": 8}
    assert outcome.summary.splitlines()[-3:] == list(HONESTY_BLOCK)
    # Compacting again takes the summary frame and the old tail, never a frame twice.
    again = chat.compact(keep_last=1, kernel=kernel)
    assert again.compacted_count == 3
    assert sum(f.compacted for f in chat.frames()) == 8


def test_nothing_to_compact_writes_nothing(db_path: Path) -> None:
    with ExecutionLog.open(db_path) as log:
        chat = log.chat_session("tiny")
        chat.user("only one")
        outcome = chat.compact(keep_last=5)
        assert outcome.compaction is None and outcome.compacted_count == 0
        assert log.compactions("tiny") == []


def test_compaction_without_a_kernel_uses_the_plugins_summary(db_path: Path) -> None:
    settings = PersistenceSettings(keep_last_frames=1)
    with ExecutionLog.open(db_path, settings) as log:
        chat = log.chat_session("solo")
        chat.user("Refactor src/lexer.py")
        chat.assistant("I will split the lexer. Then tests.")
        chat.user("go")
        outcome = chat.compact()
    assert outcome.compacted_count == 2
    assert "Goal: go" in outcome.summary
    assert "Current task: I will split the lexer." in outcome.summary


def test_kernel_pipeline_adds_other_plugins_lines_before_the_honesty_block(make_kernel) -> None:
    from sari_core.kernel.manager import hookimpl
    from sari_core.models import CompactionContribution

    class GateLines:
        name = "lspgate-stub"

        @hookimpl
        def on_compaction(self, event, session):
            return CompactionContribution(lines=["LSP gate: 1 open error in src/parser.py"])

    kernel = make_kernel()
    kernel.pm.register(GateLines(), name="lspgate-stub")
    chat = ExecutionLog.of(kernel).chat_session("gated")
    chat.user("a")
    chat.user("b")
    outcome = chat.compact(keep_last=0, kernel=kernel)
    lines = outcome.summary.splitlines()
    assert lines[-4] == "LSP gate: 1 open error in src/parser.py"
    assert lines[-3:] == list(HONESTY_BLOCK)
    assert outcome.compaction is not None and outcome.compaction.summary == outcome.summary
