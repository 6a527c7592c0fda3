"""``sari log``: sessions, one session's executions and frames, JSON-lines export."""

from __future__ import annotations

import json
import socket
import time
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
    assert "Tool-call sessions (1):" in out
    host = socket.gethostname()
    assert f":sid:cli  machine={host}  executions=2 refused=0 failed=1" in out
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "sessions", "--json")
    data = json.loads(out)
    assert [c["session_id"] for c in data["chat_sessions"]] == ["cli"]
    assert data["execution_sessions"][0]["executions"] == 2


def test_show_prints_executions_frames_and_compactions(recorded, db_path, monkeypatch, capsys):
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db_path), "show", "cli")
    assert code == 0
    assert f"{recorded['search']}  search  ok" in out
    # a missing file is a failure, said in words, not a refusal
    assert (f"{recorded['refused']}  read  failed NOT_FOUND (no such file or symbol)  nope.py"
            in out)
    assert "REFUSED" not in out and "refused" not in out
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


@pytest.fixture
def two_machines(make_kernel, db_path: Path) -> Path:
    """Two servers (machines) writing one log: reads, a refusal, a missing file."""
    laptop = make_kernel(machine="laptop-a")
    build = make_kernel(machine="build-07")
    laptop.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "lead"})
    laptop.execute_read({"mode": "file", "target": "../etc/passwd", "session_id": "lead"})
    build.execute_read({"mode": "file", "target": "src/lexer.py", "session_id": "ci"})
    build.execute_read({"mode": "file", "target": "gone.py", "session_id": "ci"})
    build.execute_search({"query": "parse", "session_id": "ci"})
    for kernel in (laptop, build):
        kernel.close()
    return db_path


def exported(monkeypatch, capsys, db_path: Path, *argv: str) -> list[tuple[str, str, str]]:
    code, out, err = sari_log(monkeypatch, capsys, "--db", str(db_path), "export", *argv)
    assert code == 0, err
    return sorted((r["machine"], r["tool"], r["target"]) for r in map(json.loads, out.splitlines())
                  if r["type"] == "execution")


def test_what_the_team_read_and_was_refused_this_week(two_machines, monkeypatch, capsys):
    db = two_machines
    assert exported(monkeypatch, capsys, db, "--machine", "build-07", "--tool", "read") == [
        ("build-07", "read", "gone.py"), ("build-07", "read", "src/lexer.py")]
    assert exported(monkeypatch, capsys, db, "--refused", "--since", "7d") == [
        ("laptop-a", "read", "../etc/passwd")]
    assert exported(monkeypatch, capsys, db, "--failed") == [("build-07", "read", "gone.py")]
    assert exported(monkeypatch, capsys, db, "--until", "2001-01-01T00:00:00Z") == []
    later = str(int(time.time()) + 3600)
    assert exported(monkeypatch, capsys, db, "--since", later) == []
    assert len(exported(monkeypatch, capsys, db, "--since", "1h")) == 5

    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db), "sessions", "--refused")
    assert code == 0 and "Tool-call sessions (1):" in out
    assert ":sid:lead  machine=laptop-a  executions=1 refused=1 failed=0" in out
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db), "sessions", "--json",
                            "--machine", "build-07")
    (ci,) = json.loads(out)["execution_sessions"]
    assert ci["session_key"].endswith(":sid:ci") and ci["machines"] == ["build-07"]
    assert (ci["executions"], ci["refused"], ci["failed"]) == (3, 0, 1)

    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db), "show", "ci", "--tool", "read")
    assert code == 0 and "Executions (2):" in out and "  search  " not in out
    assert "  build-07  " in out and "failed NOT_FOUND (no such file or symbol)  gone.py" in out
    code, out, _ = sari_log(monkeypatch, capsys, "--db", str(db), "show", "lead", "--refused")
    assert "Executions (1):" in out and "refused PATH_OUTSIDE_WORKSPACE  ../etc/passwd" in out


def test_a_filter_that_cannot_be_read_is_refused_with_the_forms_it_takes(
        two_machines, monkeypatch, capsys):
    code, out, err = sari_log(monkeypatch, capsys, "--db", str(two_machines), "export",
                              "--since", "last tuesday")
    assert code == 2 and out == ""
    assert "--since 'last tuesday' is not a time" in err and "7d" in err
    code, _, err = sari_log(monkeypatch, capsys, "--db", str(two_machines), "sessions",
                            "--since", "1d", "--until", "2d")
    assert code == 2 and "--since is after --until" in err
