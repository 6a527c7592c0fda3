"""Compaction summaries carry the session forward: a second compaction and a retried one.

Driven through Claude Code's hooks on a transcript that grows the way Claude Code
writes it: PreCompact, the client's own compact summary, more work, PreCompact again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_claude_code import (
    CWD,
    EXPECTED_SUMMARY,
    FIXTURE,
    SESSION,
    hook_event,
    session_start_input,
)

from sari_persistence.plugin import PersistencePlugin

BASE = {"isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": SESSION,
        "version": "2.0.14", "gitBranch": "main"}


def line(uuid: str, kind: str, message: dict[str, Any], **extra: Any) -> str:
    return json.dumps({**BASE, "type": kind, "message": message, "uuid": uuid,
                       "timestamp": "2026-01-10T10:00:00.000Z", **extra})


def fields(summary: str) -> dict[str, str]:
    return dict(row.split(": ", 1) for row in summary.splitlines()[1:7])


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "transcript.jsonl"
    # The fixture ends with a line still being written; a grown transcript has it whole.
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def plugin(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> PersistencePlugin:
    monkeypatch.setenv("SARI_PERSISTENCE__DB_PATH", str(db_path))
    return PersistencePlugin()


def compact(plugin: PersistencePlugin, transcript: Path) -> str:
    payload = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": CWD,
               "hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""}
    assert plugin.on_client_hook(hook_event("pre-compact", payload)) is None
    started = plugin.on_client_hook(hook_event("session-start", session_start_input("compact")))
    assert started is not None
    return started.additional_context


def append(transcript: Path, *lines: str) -> None:
    with transcript.open("a", encoding="utf-8") as stream:
        stream.write("\n".join(lines) + "\n")


def client_compact_summary(uuid: str) -> str:
    return line(uuid, "user", {"role": "user", "content": "This session is being continued "
                                                          "from a previous conversation."},
                isCompactSummary=True)


def test_a_second_compaction_keeps_the_first_ones_goal_files_and_executions(
        plugin: PersistencePlugin, transcript: Path) -> None:
    first = fields(compact(plugin, transcript))
    append(transcript,
           client_compact_summary("c0000001-0000-4000-8000-000000000001"),
           line("c0000002-0000-4000-8000-000000000002", "assistant", {
               "role": "assistant", "content": [
                   {"type": "tool_use", "id": "toolu_05Write", "name": "Write",
                    "input": {"file_path": f"{CWD}/src/cart/api.py", "content": "x = 1\n"}}]}),
           line("c0000003-0000-4000-8000-000000000003", "user", {
               "role": "user", "content": [{"tool_use_id": "toolu_05Write",
                                            "type": "tool_result",
                                            "content": "File created successfully"}]}))
    second = fields(compact(plugin, transcript))
    assert second["Goal"] == first["Goal"]
    assert second["Files modified"] == "[src/cart/api.py, src/cart/totals.py]"
    assert set(first["Files mentioned"][1:-1].split(", ")) <= \
        set(second["Files mentioned"][1:-1].split(", "))
    assert second["Files pending"] == first["Files pending"]
    first_keys = first["Key tool executions"][1:-1].split(", ")
    assert second["Key tool executions"] == \
        "[" + ", ".join([*first_keys, "toolu_05Write"][-5:]) + "]"
    assert "toolu_03Bash" in second["Key tool executions"]  # a failure stays a key execution


def test_a_retried_compaction_never_replaces_a_good_summary_with_a_worse_one(
        plugin: PersistencePlugin, transcript: Path) -> None:
    assert compact(plugin, transcript) == EXPECTED_SUMMARY
    # The client's compaction failed after PreCompact; the user runs /compact again.
    append(transcript,
           line("d0000001-0000-4000-8000-000000000001", "user",
                {"role": "user", "content": "<command-name>/compact</command-name>"}),
           line("d0000002-0000-4000-8000-000000000002", "user",
                {"role": "user", "content": "<local-command-stderr>Error: Compaction failed"
                                            "</local-command-stderr>"}),
           line("d0000003-0000-4000-8000-000000000003", "user",
                {"role": "user", "content": "<command-name>/compact</command-name>"}))
    assert compact(plugin, transcript) == EXPECTED_SUMMARY


def test_the_original_transcript_still_gives_the_documented_summary(
        plugin: PersistencePlugin, transcript: Path, tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "fresh.jsonl")
    assert compact(plugin, tmp_path / "fresh.jsonl") == EXPECTED_SUMMARY
