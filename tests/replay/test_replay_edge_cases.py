"""`sari replay` on hand-written transcripts: the cases a real session rarely shows at once."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from transcripts import SESSION, TranscriptWriter, git_workspace, numbered, tree_state

from sari_core.cli.main import main
from sari_core.costmodel import session_cost, tokens
from sari_core.replay.report import ProgressBar

CART = "def total(items):\n    return sum(item.price for item in items)\n\n\n" \
       "def discount(amount, rate):\n    return amount * (1 - rate)\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return git_workspace(tmp_path / "shop", {"shop/cart.py": CART, "logo.png": PNG,
                                             "README.md": "A shop.\n"})


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["replay", *args, "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def test_missing_binary_and_outside_paths_are_counted_honestly(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": str(workspace / "shop" / "cart.py")}, numbered(CART))
    writer.call("Read", {"file_path": str(workspace / "shop" / "gone.py")},
                "File does not exist.", is_error=True)
    writer.call("Read", {"file_path": str(workspace / "logo.png")}, "[image]")
    outside = "root:x:0:0:root:/root:/bin/bash\n" * 40
    writer.call("Read", {"file_path": "/etc/passwd"}, outside)
    writer.call("Bash", {"command": "pytest -q"}, "3 passed")
    before = tree_state(workspace)
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")),
                               "--workspace", str(workspace), "--policies", "none")
    assert code == 0, err
    [session] = report["sessions"]
    assert session["session_id"] == SESSION
    assert session["calls_recorded"] == 5
    assert session["replayed"] == 2  # cart.py, gone.py through Sari
    assert session["errors"] == 1  # gone.py not found then and now: compared
    assert session["uncompared"] == []
    # The image is the client's to render, /etc/passwd is outside, Bash is not a read: the
    # hooks leave them alone, so they count the same in both columns.
    assert session["passed_through"] == 3
    assert session["refusals"] == []
    assert session["commit"] is not None and "the last on branch main" in session["where"]
    recorded = [numbered(CART), "File does not exist.", "[image]", outside, "3 passed"]
    assert session["then"]["result_tokens"] == sum(tokens(text.rstrip()) for text in recorded)
    assert session["then"]["uncached"] == round(
        session_cost([tokens(text.rstrip()) for text in recorded]).uncached, 1)
    assert session["then"]["turns"] == session["sari"]["turns"] == 6
    assert tree_state(workspace) == before  # nothing written to the workspace


def test_a_truncated_last_line_is_left_out_and_said_so(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace)
    writer.call("Grep", {"pattern": "def discount", "path": str(workspace)}, "shop/cart.py")
    path = writer.write(tmp_path / "cut.jsonl", tail='{"type": "assistant", "message": {"ro')
    code, report, err = replay(capsys, str(path), "-w", str(workspace), "--policies", "none")
    assert code == 0, err
    [session] = report["sessions"]
    assert session["replayed"] == 1
    assert any("incomplete" in note and f"line {len(writer.lines) + 1}" in note
               for note in session["notes"]), session["notes"]


def test_a_malformed_line_is_an_error_naming_the_file_and_line(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": str(workspace / "README.md")}, "     1\tA shop.")
    good = writer.write(tmp_path / "good.jsonl")
    lines = good.read_text().splitlines()
    lines.insert(2, "{not json")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    before = tree_state(workspace)
    code, _, err = replay(capsys, str(good), str(bad), "-w", str(workspace), "--policies",
                          "none")
    assert code == 1
    assert f"{bad}:3: not a JSON object" in err
    assert "one JSON object per line" in err
    array = tmp_path / "array.jsonl"
    array.write_text('{"type": "user"}\n[1, 2]\n')
    code, _, err = replay(capsys, str(array), "-w", str(workspace), "--policies", "none")
    assert code == 1 and f"{array}:2: expected a JSON object, found list" in err
    assert tree_state(workspace) == before


def test_an_unknown_policy_is_refused(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace)
    path = writer.write(tmp_path / "s.jsonl")
    code, _, err = replay(capsys, str(path), "-w", str(workspace), "--policies", "nosuch")
    assert code == 2 and "no installed policy plugin named nosuch" in err


def test_replay_reads_the_files_as_they_were_at_the_session_commit(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": str(workspace / "shop" / "cart.py")}, numbered(CART))
    path = writer.write(tmp_path / "s.jsonl")
    (workspace / "shop" / "cart.py").write_text(CART * 40)  # the file grew since
    before = tree_state(workspace)
    code, report, err = replay(capsys, str(path), "-w", str(workspace), "--policies", "none")
    assert code == 0, err
    [at_commit] = report["sessions"]
    assert at_commit["changed_since"] == ["shop/cart.py"]
    code, report, err = replay(capsys, str(path), "-w", str(workspace), "--policies", "none",
                               "--as-is")
    [as_is] = report["sessions"]
    assert as_is["commit"] is None and "as it is now" in as_is["where"]
    assert at_commit["compared"] == as_is["compared"] == 1
    assert tree_state(workspace) == before


def test_outside_git_the_workspace_is_replayed_as_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "cart.py").write_text(CART)
    writer = TranscriptWriter(plain)
    writer.call("Glob", {"pattern": "**/*.py"}, str(plain / "cart.py"))
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(plain), "--policies", "none")
    assert code == 0, err
    [session] = report["sessions"]
    assert session["replayed"] == 1 and session["errors"] == 0
    assert "not a git repository" in session["where"]
    assert sorted(p.name for p in plain.iterdir()) == ["cart.py"]


def test_the_terminal_table_shows_the_totals_and_the_refusals(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_secretguard")
    (workspace / ".env").write_text("API_KEY=sk_live_0123456789abcdefghij\n")
    git_workspace(workspace, {})
    writer = TranscriptWriter(workspace)
    cart = str(workspace / "shop" / "cart.py")
    writer.call("Read", {"file_path": cart}, numbered(CART))  # transcript lines 3 and 4
    writer.call("Read", {"file_path": str(workspace / ".env")},
                "1\tAPI_KEY=sk_live_0123456789abcdefghij")  # line 5: refused
    writer.call("Bash", {"command": "pytest"}, "ok")
    path = writer.write(tmp_path / "s.jsonl")
    code = main(["replay", str(path), "-w", str(workspace), "--compare", "none",
                 "secretguard"])
    table = capsys.readouterr().out
    assert code == 0
    assert "Policies: none (Sari core alone); Sari's tool definitions:" in table
    assert "Policies: secretguard; Sari's tool definitions:" in table
    totals = [line.split() for line in table.splitlines() if line.startswith("total ")]
    # Every call compared in both sets: the replay goes on past the refusal.
    assert [row[1:3] for row in totals] == [["3/3", "100%"], ["3/3", "100%"]]
    assert [row[-3] for row in totals] == ["-", "1"]
    assert "[secretguard] refused at line 5 (Read " in table


def test_the_progress_bar_counts_calls_on_stderr() -> None:
    stream = io.StringIO()
    bar = ProgressBar(4, enabled=True, stream=stream)
    for _ in range(4):
        bar.advance()
    bar.close()
    assert stream.getvalue().endswith("sari replay [" + "#" * 30 + "] 4/4 calls\n")
    quiet = io.StringIO()
    ProgressBar(4, enabled=False, stream=quiet).advance()
    assert quiet.getvalue() == ""
