"""``sari index``, ``sari search`` and ``sari read`` on the fixture repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sari_core.cli.main import main


@pytest.fixture(autouse=True)
def _no_installed_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands go through a Kernel with entry points; none of them here."""
    monkeypatch.setenv("SARI_PLUGINS", "none")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_index_then_search_human_readable(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "index", str(repo))
    assert code == 0 and "indexed" in out and err == ""  # no progress bar off a terminal
    again = json.loads(run(capsys, "index", str(repo), "--json")[1])
    assert again["indexed"] == 0 and again["unchanged"] == again["files"]
    code, out, _ = run(capsys, "search", "def helper", "--workspace", str(repo))
    assert code == 0
    assert out.splitlines()[0].startswith("src/app.py:12  def helper(value):   [definition")
    assert out.splitlines()[-1] == "1 file matched; 1 match shown, from 1 file"


def test_the_search_footer_counts_files_and_matches_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("marker = 1\n" * 4, encoding="utf-8")
    run(capsys, "index", str(tmp_path))
    code, out, _ = run(capsys, "search", "marker", "--workspace", str(tmp_path))
    assert code == 0
    assert out.splitlines()[-1] == "3 files matched; 10 matches shown, from 3 files"


def test_search_indexes_on_first_use_and_json_is_the_response(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "renderPage", "--workspace", str(repo), "--json",
                       "--kind", "symbol")
    response = json.loads(out)
    assert code == 0 and response["ok"] is True and response["kind"] == "symbol"
    assert response["matches"][0]["path"] == "web/index.js"
    assert set(response["meta"]) >= {"truncated", "token_estimate", "preview_degraded",
                                     "stabilization", "index_ready"}


def test_search_options(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "EXECUTE_READ", "--workspace", str(repo),
                       "--case-sensitive", "--json")
    assert code == 0 and json.loads(out)["total"] == 0
    code, out, _ = run(capsys, "search", "execute_read", "--workspace", str(repo),
                       "--glob", "*.md", "--limit", "1", "--json")
    assert [m["path"] for m in json.loads(out)["matches"]] == ["docs/notes.md"]


def test_read_modes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "read", "helper", "--mode", "symbol", "--workspace", str(repo))
    assert code == 0
    assert out.splitlines()[:3] == ["src/app.py: lines 12-13 of 13", "12 | def helper(value):",
                                    "13 |     return os.fspath(value)"]
    code, out, _ = run(capsys, "read", "src/app.py", "--mode", "snippet", "--start-line", "4",
                       "--workspace", str(repo), "--json")
    assert json.loads(out)["text"] == "class Reader:\n"
    (repo / "src" / "app.py").write_text("changed = 1\n")
    code, out, _ = run(capsys, "read", "src/app.py", "--mode", "diff_preview", "--workspace",
                       str(repo))
    assert code == 0 and "+changed = 1" in out


def test_a_refusal_exits_1_with_the_hint(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "read", "../outside/secret.txt", "--workspace", str(repo))
    assert code == 1 and out == ""
    assert err.startswith("sari: PATH_OUTSIDE_WORKSPACE:") and "hint:" in err
    code, _, err = run(capsys, "read", "src/app.py", "--start-line", "2", "--workspace", str(repo))
    assert code == 1
    assert "start_line is only valid for mode='snippet'. Remove it or switch mode." in err


def test_the_first_search_of_a_never_indexed_tree_answers_from_a_scan_then_builds(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "def execute_read", "--workspace", str(repo))
    assert code == 0
    assert out.splitlines()[0].startswith("src/app.py:7")
    assert out.splitlines()[-1].endswith("(index still building)")
    assert "index is still being built" in err and "building the index" in err
    code, out, err = run(capsys, "search", "def execute_read", "--workspace", str(repo))
    assert code == 0 and "(index still building)" not in out and "building" not in err
