"""The index database: location, WAL, rebuilds, incremental refresh, progress, references."""

from __future__ import annotations

import io
import logging
import sqlite3
from pathlib import Path

import pytest
from engine_repo import write

from sari_core.engine import Workspace
from sari_core.engine.index.progress import Progress, wants_progress
from sari_core.engine.index.schema import SCHEMA_VERSION, default_index_path
from sari_core.kernel.sessions import workspace_hash
from sari_core.locations import cache_dir
from sari_core.models import SearchCall


def test_the_index_lives_in_the_cache_folder_never_in_the_workspace(workspace: Workspace,
                                                                    repo: Path) -> None:
    expected = cache_dir() / "index" / f"{workspace_hash(repo)}.sqlite"
    assert workspace.index_path == expected == default_index_path([repo])
    assert expected.exists()
    assert not [p for p in repo.rglob("*.sqlite*")]
    mode = sqlite3.connect(expected).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_refresh_is_incremental(workspace: Workspace, repo: Path) -> None:
    again = workspace.ensure_index(progress=False)
    assert again.indexed == 0 and again.removed == 0 and again.unchanged == again.files
    write(repo, "src/other.py", "changed = True\n")
    (repo / "web" / "view.tsx").unlink()
    write(repo, "src/added.py", "added = True\n")
    third = workspace.ensure_index(progress=False)
    assert (third.indexed, third.removed) == (2, 1)


def test_a_reopened_workspace_reuses_its_index(workspace: Workspace, repo: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    workspace.close()
    with caplog.at_level(logging.WARNING), Workspace([repo]) as again:
        stats = again.ensure_index(progress=False)
        assert stats.indexed == 0 and stats.unchanged == stats.files > 10
        assert again.search(SearchCall(query="renderPage")).total == 1
    assert not caplog.records


def test_an_unchanged_file_with_a_new_mtime_is_not_reindexed(workspace: Workspace,
                                                             repo: Path) -> None:
    target = repo / "src" / "other.py"
    target.touch()
    stats = workspace.ensure_index(progress=False)
    assert stats.indexed == 0  # size/mtime differed, the hash did not


def test_a_corrupt_index_is_rebuilt_with_a_message(repo: Path, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    index = tmp_path / "corrupt.sqlite"
    index.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING), Workspace([repo], index_path=index) as engine:
        engine.ensure_index(progress=False)
        assert engine.search(SearchCall(query="renderPage")).total == 1
    assert any("rebuilding" in record.message for record in caplog.records)


def test_an_old_schema_is_rebuilt_with_a_message(repo: Path, tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    index = tmp_path / "old.sqlite"
    conn = sqlite3.connect(index)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '0')")
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING), Workspace([repo], index_path=index) as engine:
        engine.ensure_index(progress=False)
        assert engine.search(SearchCall(query="renderPage")).total == 1
        version = engine.store.get_meta("schema_version")
    assert version == str(SCHEMA_VERSION)
    assert any("schema version 0" in record.message for record in caplog.records)


def test_reference_counts(shared: Workspace) -> None:
    counts = shared.reference_counts()
    # helper (src/app.py) is called from src/other.py and src/test_app.py.
    assert counts["src/app.py"] == 2
    # makeShape (web/types.ts) is called from web/view.tsx; renderPage only from its own file.
    assert counts["web/types.ts"] == 1
    assert "web/index.js" not in counts


def test_index_status(shared: Workspace) -> None:
    status = shared.index_status()
    assert status["ready"] is True and status["text_files"] >= 15
    assert int(status["symbols"]) > 20 and int(status["bytes"]) > 0  # type: ignore[call-overload]


def test_progress_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wants_progress(None, io.StringIO()) is False
    assert wants_progress(None, Terminal()) is True
    assert wants_progress(True, io.StringIO()) is True
    shown = Terminal()
    bar = Progress(3, True, stream=shown)
    for _ in range(3):
        bar.advance()
    bar.close("done")
    assert "3/3 files" in shown.getvalue() and shown.getvalue().endswith("done\n")
    quiet = io.StringIO()
    silent = Progress(3, False, stream=quiet)
    silent.advance()
    silent.close("done")
    assert quiet.getvalue() == ""


def test_a_build_is_quiet_off_a_terminal(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Workspace([repo]) as engine:
        engine.ensure_index()
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_extra_exclusions(repo: Path, tmp_path: Path) -> None:
    with Workspace([repo], index_path=tmp_path / "x.sqlite", exclude=["web/", "*.go"]) as engine:
        engine.ensure_index(progress=False)
        files = {row.path for row in engine.store.text_files()}
    assert "src/app.py" in files
    assert not any(path.startswith("web/") or path.endswith(".go") for path in files)
