"""An index another process is writing is in use, not damaged: opening it never deletes it.

A second ``sari search`` (or a server) opening the index while a build held a long write
transaction used to wait out the busy timeout on a pragma that takes the write lock, take
"database is locked" for damage, and delete the index under the running build, whose work
then went to a file no one could open again.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from sari_core.engine.index import schema


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(schema, "BUSY_TIMEOUT_MS", 300)  # the wait, shortened for the test
    path = tmp_path / "index.sqlite"
    conn = schema.open_index(path)
    conn.execute("INSERT INTO meta VALUES ('kept', 'yes')")
    conn.close()
    return path


def test_opening_an_index_while_a_build_writes_it_keeps_the_index_and_the_build_s_rows(
        index: Path) -> None:
    inode = os.stat(index).st_ino
    build = schema.connect(index)
    build.execute("BEGIN IMMEDIATE")  # a build's transaction, still open
    build.execute("INSERT INTO meta VALUES ('written_by_the_build', '1')")
    second = schema.open_index(index)  # another command opens it meanwhile
    build.execute("COMMIT")
    assert os.stat(index).st_ino == inode  # the same file, not a new empty one
    rows = dict(second.execute("SELECT key, value FROM meta").fetchall())
    assert rows["kept"] == "yes" and rows["written_by_the_build"] == "1"


def test_an_index_locked_past_the_wait_is_reported_busy_and_left_alone(index: Path) -> None:
    holder = schema.connect(index)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")  # no reader gets in at all
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO meta VALUES ('written_by_the_holder', '1')")
    holder.execute("COMMIT")  # an exclusive-mode connection keeps its lock after commit
    with pytest.raises(schema.IndexBusy, match="locked by another process"):
        schema.open_index(index)
    holder.close()
    rows = dict(sqlite3.connect(index).execute("SELECT key, value FROM meta").fetchall())
    assert rows["kept"] == "yes" and rows["written_by_the_holder"] == "1"


def test_the_command_line_says_the_index_is_busy_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sari_core.cli.main import main

    monkeypatch.setattr(schema, "BUSY_TIMEOUT_MS", 300)
    monkeypatch.setenv("SARI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SARI_PLUGINS", "none")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("def alpha():\n    return 1\n")
    assert main(["index", str(tree)]) == 0
    path = schema.default_index_path([tree.resolve()])
    holder = schema.connect(path)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO meta VALUES ('written_by_the_holder', '1')")
    holder.execute("COMMIT")
    capsys.readouterr()
    assert main(["search", "alpha", "-w", str(tree)]) == 2
    err = capsys.readouterr().err
    assert "locked by another process" in err and "Traceback" not in err
    holder.close()
    rows = dict(sqlite3.connect(path).execute("SELECT key, value FROM meta").fetchall())
    assert rows["written_by_the_holder"] == "1"
