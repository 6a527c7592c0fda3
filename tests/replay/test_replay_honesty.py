"""`sari replay` counts only what it can compare, and charges what Sari withheld but the
session went on to need."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from transcripts import COMMITTED, TranscriptWriter, git_workspace, numbered

from sari_core.cli.main import main
from sari_core.costmodel import tokens

CART = "def total(items):\n    return sum(item.price for item in items)\n\n\n" \
       "def discount(amount, rate):\n    return amount * (1 - rate)\n"
# A module longer than one read may deliver under the default budget (300 lines).
LEDGER = "".join(f"def entry_{n}(book):\n    return book.lines[{n}]\n\n\n" for n in range(150))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return git_workspace(tmp_path / "shop", {"shop/cart.py": CART, "shop/ledger.py": LEDGER,
                                             "README.md": "A shop.\n"})


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["replay", *args, "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def test_a_read_of_a_file_missing_from_the_rebuilt_workspace_is_not_a_saving(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": str(workspace / "shop" / "cart.py")}, numbered(CART))
    # The session read a file the rebuilt workspace does not hold (never committed).
    writer.call("Read", {"file_path": str(workspace / "shop" / "draft.py")},
                numbered(LEDGER))
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "none")
    assert code == 0, err
    [session] = report["sessions"]
    # Left out of both columns: the recorded read is not set against Sari's "not found".
    assert session["then"]["result_tokens"] == tokens(numbered(CART))
    assert session["then"]["calls"] == session["sari"]["calls"] == 1
    assert session["compared"] == 1 and session["coverage"] == 0.5
    [left] = session["uncompared"]
    assert left["tool"] == "Read" and "NOT_FOUND" in left["reason"]
    # Half the calls compared: too little for a ratio.
    assert session["ratio"] == {"tokens": None, "uncached": None, "cached": None}
    main(["replay", str(tmp_path / "s.jsonl"), "-w", str(workspace), "--policies", "none"])
    table = capsys.readouterr().out
    [total] = [line.split() for line in table.splitlines() if line.startswith("total ")]
    assert total[1:3] == ["1/2", "50%"] and total[-2:] == ["-", "-"]
    assert "not compared: line 5 (Read): Sari answered NOT_FOUND" in table


def test_withheld_lines_the_session_later_edits_are_charged_the_read(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_budget")  # a policy the replay names
    ledger = str(workspace / "shop" / "ledger.py")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": ledger}, numbered(LEDGER))
    # Line 561 is past the 300 lines one read delivers under the budget.
    writer.call("Edit", {"file_path": ledger, "old_string": "book.lines[140]",
                         "new_string": "book.lines.get(140)"}, "The file has been updated.")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--compare", "none", "budget")
    assert code == 0, err
    core, budget = report["sessions"]
    assert core["follow_ups"] == 0 and core["sari"]["calls"] == 2  # core showed it whole
    assert budget["follow_ups"] == 1
    [action] = budget["actions"]  # the whole read, narrowed; its lines were needed
    assert action["kind"] == "narrowed" and action["withheld"] == len(LEDGER.splitlines()) - 300
    assert action["needed_at"] == 5  # the Edit's transcript line
    # The agent reads the lines it edits before editing them: one more call and turn.
    assert budget["sari"]["calls"] == budget["then"]["calls"] + 1 == 3
    assert budget["sari"]["result_tokens"] > tokens("\n".join(
        LEDGER.splitlines()[560:562]))


def test_withheld_lines_never_needed_again_are_not_charged(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_budget")  # a policy the replay names
    ledger = str(workspace / "shop" / "ledger.py")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": ledger}, numbered(LEDGER))
    writer.call("Edit", {"file_path": ledger, "old_string": "book.lines[3]",
                         "new_string": "book.lines.get(3)"}, "The file has been updated.")
    writer.call("Grep", {"pattern": "entry_4\\b", "output_mode": "content", "-n": True},
                "shop/ledger.py:17:def entry_4(book):")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "budget")
    assert code == 0, err
    [budget] = report["sessions"]
    assert budget["follow_ups"] == 0 and budget["sari"]["calls"] == 3
    [action] = budget["actions"]
    assert action["kind"] == "narrowed" and action["needed_at"] is None  # a right call


def test_a_grep_of_withheld_lines_is_charged_the_read(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_budget")  # a policy the replay names
    ledger = str(workspace / "shop" / "ledger.py")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": ledger}, numbered(LEDGER))
    writer.call("Grep", {"pattern": "entry_120\\b", "output_mode": "content", "-n": True},
                "shop/ledger.py:481:def entry_120(book):")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "budget")
    assert code == 0, err
    [budget] = report["sessions"]
    assert budget["follow_ups"] == 1 and budget["sari"]["calls"] == 3


def test_the_replay_goes_on_past_a_refusal(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_secretguard")
    (workspace / ".env").write_text("API_KEY=sk_live_0123456789abcdefghij\n")
    git_workspace(workspace, {})  # commit it too
    cart = str(workspace / "shop" / "cart.py")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": cart}, numbered(CART))
    writer.call("Read", {"file_path": str(workspace / ".env")},
                "     1\tAPI_KEY=sk_live_0123456789abcdefghij")
    writer.call("Bash", {"command": "pytest"}, "ok")
    writer.call("Grep", {"pattern": "discount", "output_mode": "content", "-n": True},
                "shop/cart.py:5:def discount(amount, rate):")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "secretguard")
    assert code == 0, err
    [guarded] = report["sessions"]
    [refusal] = guarded["refusals"]
    assert refusal["call_index"] == 1
    assert refusal["arguments"]["file_path"] == str(workspace / ".env")
    assert guarded["compared"] == 4 and guarded["coverage"] == 1.0  # every call, after it too
    assert guarded["then"]["calls"] == 4
    assert report["totals"][0]["refusals"] == 1
    assert report["totals"][0]["ratio"]["cached"] is not None


def _git(root: Path, *argv: str, when: str = COMMITTED) -> None:
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "HOME": str(root),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@sari.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@sari.invalid",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    subprocess.run(["git", *argv], cwd=root, check=True, env=env, capture_output=True)


def test_a_deleted_branch_is_not_reported_as_its_last_commit(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = TranscriptWriter(workspace, branch="feature/gone")
    writer.call("Read", {"file_path": str(workspace / "README.md")}, "     1\tA shop.")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "none")
    assert code == 0, err
    [session] = report["sessions"]
    where = session["where"]
    assert "on branch feature/gone" not in where
    assert "branch feature/gone is not in the repository" in where
    assert "the last on HEAD before the session started" in where


def test_an_empty_tree_commit_is_replayed_without_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "commit", "-q", "--allow-empty", "-m", "start")
    (root / "README.md").write_text("A shop.\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "later", when="2031-01-01T00:00:00+00:00")
    writer = TranscriptWriter(root)
    writer.call("Read", {"file_path": str(root / "README.md")}, "     1\tA shop.")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(root), "--policies", "none")
    assert code == 0, err
    [session] = report["sessions"]
    assert "no files" in session["where"]
    assert session["compared"] == 0 and len(session["uncompared"]) == 1


def test_without_policies_the_installed_policies_are_used(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sari_budget")  # a policy the replay names
    pytest.importorskip("sari_aggregation")  # a policy the replay names
    monkeypatch.setenv("SARI_PLUGINS", "budget,aggregation")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": str(workspace / "README.md")}, "     1\tA shop.")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace))
    assert code == 0, err
    [session] = report["sessions"]
    assert session["policies"] == ["aggregation", "budget"]


def test_a_secret_file_read_is_replayed_as_the_hooks_refusal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_secretguard")  # a policy the replay names
    secret = "API_TOKEN=" + "s3cr3t-" * 8 + "\n"
    root = git_workspace(tmp_path / "app", {".env": secret, "app.py": "print(1)\n"})
    writer = TranscriptWriter(root)
    writer.call("Read", {"file_path": str(root / ".env")}, numbered(secret))
    writer.call("Bash", {"command": "cat .env | tr -d x"}, secret)
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(root), "--compare", "none", "secretguard")
    assert code == 0, err
    core, guarded = report["sessions"]
    assert guarded["compared"] == 2 and len(guarded["refusals"]) == 2
    assert all(r["tool"] in ("Read", "Bash") for r in guarded["refusals"])
    # The model is shown the hooks' refusals, not the secret.
    assert guarded["sari"]["result_tokens"] != guarded["then"]["result_tokens"]
    # Core alone still refuses a shell command it cannot read whole that names the file.
    assert [r["tool"] for r in core["refusals"]] == ["Bash"]


def test_lines_shown_earlier_are_not_withheld_by_a_later_denial(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_aggregation")  # a policy the replay names
    cart = str(workspace / "shop" / "cart.py")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": cart}, numbered(CART))
    # The same file again: the hooks answer with a reference to the lines already shown.
    writer.call("Read", {"file_path": cart}, numbered(CART))
    writer.call("Edit", {"file_path": cart, "old_string": "return amount * (1 - rate)",
                         "new_string": "return amount * (1.0 - rate)"},
                "The file has been updated.")
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "aggregation")
    assert code == 0, err
    [session] = report["sessions"]
    assert [r["call_index"] for r in session["refusals"]] == [1]
    # The edited line was shown by the first read: no follow-up read is owed.
    assert session["follow_ups"] == 0 and session["actions"] == []


def test_a_shell_read_of_withheld_lines_is_charged_the_read(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sari_budget")  # a policy the replay names
    ledger = str(workspace / "shop" / "ledger.py")
    writer = TranscriptWriter(workspace)
    writer.call("Read", {"file_path": ledger}, numbered(LEDGER))
    wanted = "\n".join(LEDGER.splitlines()[559:562])
    writer.call("Bash", {"command": "sed -n '560,562p' shop/ledger.py"}, wanted)
    code, report, err = replay(capsys, str(writer.write(tmp_path / "s.jsonl")), "-w",
                               str(workspace), "--policies", "budget")
    assert code == 0, err
    [budget] = report["sessions"]
    assert budget["follow_ups"] == 1 and budget["actions"][0]["needed_at"] == 5
