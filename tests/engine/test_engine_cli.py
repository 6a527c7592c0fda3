"""``sari index``, ``sari search`` and ``sari read`` on the fixture repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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
    assert out.splitlines()[:4] == ["src/app.py: lines 11-13 of 13", "11 | @decorated",
                                    "12 | def helper(value):", "13 |     return os.fspath(value)"]
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
    assert "index is still being built" in err and "building the index in the background" in err
    from sari_core.cli.detached_build import build_running
    from sari_core.engine.index.schema import default_index_path

    deadline = time.monotonic() + 60
    while build_running(default_index_path([repo])) and time.monotonic() < deadline:
        time.sleep(0.1)
    code, out, err = run(capsys, "search", "def execute_read", "--workspace", str(repo))
    assert code == 0 and "(index still building)" not in out and "building" not in err


def spawned_rg(monkeypatch: pytest.MonkeyPatch) -> tuple[list[list[str]], list[list[str]]]:
    """(commands started early, commands spawned in all) of the scan's rg processes."""
    from sari_core.engine.scan import rg_command

    early: list[list[str]] = []
    spawned: list[list[str]] = []
    real_start, real_popen = rg_command.start_early, rg_command.subprocess.Popen

    def start(command: list[str]) -> None:
        early.append(list(command))
        real_start(command)

    def popen(command: list[str], *args: object, **kwargs: object) -> object:
        spawned.append(list(command))
        return real_popen(command, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(rg_command, "start_early", start)
    monkeypatch.setattr(rg_command.subprocess, "Popen", popen)
    return early, spawned


def test_a_first_search_takes_the_ripgrep_started_before_the_kernel_loaded(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from sari_core.engine.scan import rg_command

    early, spawned = spawned_rg(monkeypatch)
    code, out, err = run(capsys, "search", "def helper", "--workspace", str(repo))
    assert code == 0 and out.startswith("src/app.py:12  def helper(value):")
    assert "building the index" in err
    searches = [command for command in spawned if "--regexp" in command]
    assert len(early) == 1 and searches == early  # one rg: the early one, taken
    assert not rg_command._early


def test_an_early_scan_the_call_did_not_take_is_stopped_after_the_answer(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from sari_core.engine.scan import rg_command

    early, spawned = spawned_rg(monkeypatch)
    monkeypatch.setattr(rg_command, "run", lambda command, timeout: (b"", 0))  # nothing taken
    assert run(capsys, "search", "def helper", "--workspace", str(repo))[0] == 0
    assert len(early) == 1 and not rg_command._early


def test_nothing_starts_early_for_an_indexed_workspace_or_a_symbol_search(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    early, _ = spawned_rg(monkeypatch)
    assert run(capsys, "search", "renderPage", "--workspace", str(repo), "--kind",
               "symbol")[0] == 0
    assert run(capsys, "search", "def helper", "--workspace", str(repo))[0] == 0  # indexed
    assert early == []


def test_an_early_scan_nobody_takes_is_stopped_at_exit() -> None:
    from sari_core.engine.scan import rg_command

    command = [sys.executable, "-c", "import time; time.sleep(60)"]
    rg_command.start_early(command)
    process = rg_command._early[tuple(command)].process
    rg_command.stop_unused()
    assert process.returncode is not None and not rg_command._early


def test_search_starts_ripgrep_before_loading_the_kernel_or_pydantic() -> None:
    probe = ("import sys\nfrom sari_core.cli.main import build_registry\n"
             "from sari_core.cli import early_scan\n"
             "build_registry('search')\n"
             "print(*[m in sys.modules for m in ('sari_core.kernel.pipeline', 'pydantic', "
             "'sari_core.engine.workspace', 'importlib_metadata')])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False"] * 4


def test_a_first_answer_from_a_scan_loads_no_reading_navigation_or_writing(
        tmp_path: Path) -> None:
    """A one-shot search of a never-indexed tree (the command line's first answer) imports
    only what the scan needs: reading, navigating, outlining and writing load on first use."""
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "app.py").write_text("def helper(value):\n    return value\n")
    probe = (
        "import sys\nfrom sari_core.engine import Workspace\nfrom sari_core.kernel import Kernel\n"
        f"engine = Workspace([{str(tmp_path / 'tree')!r}], watch=False)\n"
        "engine.scan_before_build = True\n"
        "with Kernel(engine, analytics_sinks=[]) as kernel:\n"
        "    answer = kernel.execute_search({'query': 'def helper'})\n"
        "print(answer['total'], *[m in sys.modules for m in ('sari_core.engine.navigation.reading', "
        "'sari_core.engine.navigation.navigation', 'sari_core.engine.navigation.outline', "
        "'sari_core.engine.changes.mutations')])\n"
        "print(engine.reader.__class__.__name__, engine.mutator.keep_executable_bits)")
    env = {**os.environ, "SARI_PLUGINS": "none", "SARI_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env=env).stdout.split()
    assert out == ["1", "False", "False", "False", "False", "Reader", "False"]


def test_an_early_scan_prints_all_it_finds_before_the_scan_reads_it(tmp_path: Path) -> None:
    """A broad query's lines fill a pipe long before Sari has loaded: the early process must
    not wait for the scan to start reading (it would then scan no earlier than a late one)."""
    from sari_core.engine.scan import rg_command

    done = tmp_path / "done"
    writer = ("import sys, pathlib\nsys.stdout.buffer.write(b'x' * (4 << 20))\n"
              f"sys.stdout.flush()\npathlib.Path({str(done)!r}).touch()\n")
    command = [sys.executable, "-c", writer]
    rg_command.start_early(command)
    try:
        for _ in range(200):  # up to 20 s, nothing reading on this side
            if done.exists():
                break
            time.sleep(0.1)
        assert done.exists()
        output, status = rg_command.run(command, timeout=30)
        assert status == 0 and output == b"x" * (4 << 20)
    finally:
        rg_command.stop_unused()


def test_an_early_scan_past_its_deadline_returns_what_it_printed() -> None:
    from sari_core.engine.scan import rg_command

    command = [sys.executable, "-c", "import sys, time\nsys.stdout.write('a:1\\n')\n"
               "sys.stdout.flush()\ntime.sleep(60)\n"]
    rg_command.start_early(command)
    time.sleep(0.5)
    output, status = rg_command.run(command, timeout=0.5)
    assert status is None and output == b"a:1\n" and not rg_command._early


def test_a_search_reports_the_cpu_its_answer_took_when_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``SARI_STARTUP_REPORT=1``: the CPU used by the time the answer is out, one line on
    stderr (a figure the machine's load does not stretch, which the first-answer bench
    reads); nothing without it."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "app.py").write_text("def helper(value):\n    return value\n")
    monkeypatch.setenv("SARI_CACHE_DIR", str(tmp_path / "cache"))
    assert "sari: answered" not in run(capsys, "search", "helper", "-w", str(tree))[2]
    monkeypatch.setenv("SARI_STARTUP_REPORT", "1")
    code, out, err = run(capsys, "search", "helper", "-w", str(tree))
    line = next(line for line in err.splitlines() if line.startswith("sari: answered "))
    report = json.loads(line.removeprefix("sari: answered "))
    assert code == 0 and "1 file matched" in out
    assert report["cpu_seconds"] > 0 and report["children_cpu_seconds"] >= 0


def test_a_scan_reads_rg_s_records_as_they_are_printed() -> None:
    """A broad query's lines are parsed while rg still scans: each block of whole records
    comes as soon as it is printed, not when rg ends."""
    from sari_core.engine.scan import rg_command

    command = [sys.executable, "-c", "import sys, time\nsys.stdout.write('a\\0001:x\\nb\\0002')\n"
               "sys.stdout.flush()\ntime.sleep(3)\nsys.stdout.write(':y\\n')\n"]
    started = time.monotonic()
    streamed = iter(rg_command.Streamed(command, timeout=30))
    assert next(streamed) == b"a\x001:x\n" and time.monotonic() - started < 2.5
    assert list(streamed) == [b"b\x002:y\n"]


def test_a_streamed_scan_past_its_deadline_keeps_the_whole_records_and_stops_rg() -> None:
    from sari_core.engine.scan import rg_command

    command = [sys.executable, "-c", "import sys, time\nsys.stdout.write('a\\0001:x\\nb\\0002')\n"
               "sys.stdout.flush()\ntime.sleep(60)\n"]
    started = time.monotonic()
    streamed = rg_command.Streamed(command, timeout=1.0)
    assert b"".join(streamed) == b"a\x001:x\n" and streamed.status is None
    assert time.monotonic() - started < 10
