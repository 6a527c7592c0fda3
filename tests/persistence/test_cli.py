"""``sari log``: sessions, one session's executions and frames, JSON-lines export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sari_core.cli.main import main
from sari_persistence import ExecutionLog


@pytest.fixture
def recorded(make_kernel, db_path: Path) -> dict[str, str]:
    kernel = make_kernel()
    search = kernel.execute_search({"query": "parse", "session_id": "cli"})
    refused = kernel.execute_read({"mode": "file", "target": "nope.py", "session_id": "cli"})
    chat = ExecutionLog.of(kernel).chat_session("cli", project_root="/tmp/proj", model="m")
    chat.user("look at src/parser.py")
    chat.tool("search", json.dumps(search), execution_id=search["meta"]["execution_id"])
    chat.assistant("Next: read it")
    chat.compact(keep_last=1, kernel=kernel)
    kernel.close()
    return {"search": search["meta"]["execution_id"], "refused": refused["meta"]["execution_id"]}


def sari_log(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             *argv: str) -> tuple[int, str, str]:
    monkeypatch.setenv("SARI_PLUGINS", "persistence")
    code = main(["log", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_sessions_lists_chat_and_tool_call_sessions(recorded, db_path, monkeypatch, capsys):
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "sessions")
    assert code == 0
    assert "Chat sessions (1):" in out and "  cli  " in out and "frames=4 compactions=1" in out
    assert "Tool-call sessions (1):" in out and ":sid:cli  executions=2 refused=1" in out
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "sessions", "--json")
    data = json.loads(out)
    assert [c["session_id"] for c in data["chat_sessions"]] == ["cli"]
    assert data["execution_sessions"][0]["executions"] == 2


def test_show_prints_executions_frames_and_compactions(recorded, db_path, monkeypatch, capsys):
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "show", "cli")
    assert code == 0
    assert f"{recorded['search']}  search  ok" in out
    assert f"{recorded['refused']}  read  REFUSED NOT_FOUND  nope.py" in out
    assert "#0  " in out and "user compacted: look at src/parser.py" in out
    assert f"tool[search] ({recorded['search']}) compacted:" in out
    assert "tool[compaction_summary]: === COMPACTION SUMMARY ===" in out
    assert "Compactions (1):" in out and "compacted=2 retained=1" in out
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "show", "cli", "--json")
    data = json.loads(out)
    assert [e["id"] for e in data["executions"]] == [recorded["search"], recorded["refused"]]
    assert [f["sequence_index"] for f in data["frames"]] == [0, 1, 2, 3]
    code, _, err = sari_log(monkeypatch, capsys, "--db", str(db_path), "show", "ghost")
    assert code == 1 and "no session 'ghost'" in err


def test_export_writes_json_lines(recorded, db_path, tmp_path, monkeypatch, capsys):
    out_file = tmp_path / "export.jsonl"
    code, _, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "export", "-o",
                          str(out_file))
    assert code == 0
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    kinds = [record["type"] for record in records]
    assert kinds == ["chat_session"] + ["frame"] * 4 + ["compaction"] + ["execution"] * 2
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "export", "--session",
                            "cli")
    assert [json.loads(line)["type"] for line in out.splitlines()] == kinds


def test_missing_and_unreadable_logs_are_reported(tmp_path, monkeypatch, capsys):
    code, _, err = sari_log(monkeypatch, capsys, "--db", str(tmp_path / "none.db"), "sessions")
    assert code == 0 and "no execution log yet" in err
    assert not (tmp_path / "none.db").exists()
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite")
    code, _, err = sari_log(monkeypatch, capsys, "--db", str(bad), "sessions")
    assert code == 1 and "not an SQLite database" in err
    assert bad.read_text() == "not sqlite"


def test_default_path_comes_from_the_settings(recorded, db_path, monkeypatch, capsys):
    monkeypatch.setenv("SARI_PERSISTENCE__DB_PATH", str(db_path))
    code, out, _ = sari_log(monkeypatch, capsys, "sessions")
    assert code == 0 and f"Execution log: {db_path}" in out
