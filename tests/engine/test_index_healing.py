"""An index build killed at any moment is complete after the next open.

A real ``python`` process builds the index of a few hundred files (enough for the
symbol worker processes to be used) and is killed with SIGINT, SIGTERM or SIGKILL at
moments spread over its build; after each kill, a refresh must leave every file with
its text and exactly the symbols a fresh extraction gives (its definitions as rows, its
references packed).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from sari_core.engine import Workspace
from sari_core.engine.files.textfile import language_of
from sari_core.engine.index import indexer, symbol_jobs
from sari_core.engine.index.build_settings import FIRST_BUILD_FTS, FTS_TABLES, USUAL_FTS, set_fts
from sari_core.engine.index.references import entries
from sari_core.engine.index.schema import unpack_text
from sari_core.engine.index.symbols import extract

# Above the counts at which symbol extraction moves to worker processes and a build is a
# bulk one (no fsync, full-text segments merged at the end, name index built after).
FILES = max(symbol_jobs.POOL_THRESHOLD_FILES, indexer.BULK_FILES) + 20
KILLS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)

BUILD = """
import sys
from pathlib import Path
from sari_core.engine import Workspace
from sari_core.engine.index.references import entries
from sari_core.engine.index.schema import unpack_text
with Workspace([sys.argv[1]], index_path=Path(sys.argv[2]), watch=False) as ws:
    print("open", flush=True)
    ws.ensure_index(progress=False)
"""


def _corpus(root: Path) -> None:
    for number in range(FILES):
        folder = root / f"pkg{number % 12}"
        folder.mkdir(exist_ok=True)
        body = "".join(f"def helper_{number}_{k}(value):\n    return value + {k}\n\n"
                       for k in range(20))
        (folder / f"module_{number}.py").write_text(
            f'"""Module {number}."""\n\n\nclass Thing{number}:\n    def run(self):\n'
            f"        return helper_{number}_0(1)\n\n\n{body}", encoding="utf-8")
    (root / "notes.txt").write_text("not code\n", encoding="utf-8")


def _check_complete(root: Path, index: Path) -> None:
    conn = sqlite3.connect(index)
    try:
        rows = conn.execute("SELECT id, path, symbols_pending FROM files").fetchall()
        assert len(rows) == FILES + 1
        for file_id, rel, pending in rows:
            assert not pending, rel
            stored = conn.execute(
                "SELECT name, kind, is_def, line, end_line FROM symbols WHERE file_id = ?",
                (file_id,)).fetchall()
            for (data,) in conn.execute("SELECT data FROM file_references WHERE file_id = ?",
                                        (file_id,)):
                stored += [(name, kind, 0, line, line) for name, kind, line in entries(data)]
            stored.sort()
            data = (root / rel).read_bytes()
            assert stored == sorted(extract(language_of(rel), data)), rel
            text = conn.execute("SELECT data FROM contents WHERE id = ?", (file_id,)).fetchone()
            assert text is not None and unpack_text(text[0]) == data.decode("utf-8"), rel
        for table in FTS_TABLES:  # intact, with the settings of a build that completed
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 0)")
            settings = dict(conn.execute(f"SELECT k, v FROM {table}_config"))
            assert {key: settings.get(key, value) for key, value in USUAL_FTS.items()} \
                == USUAL_FTS, table
    finally:
        conn.close()


def _build(root: Path, index: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", BUILD, str(root), str(index)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _full_build_seconds(root: Path, index: Path) -> float:
    process = _build(root, index)
    assert process.stdout is not None
    process.stdout.readline()  # opened: time the build itself
    started = time.monotonic()
    assert process.wait(timeout=300) == 0
    return time.monotonic() - started


def test_a_build_killed_at_any_moment_heals_on_the_next_refresh(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _corpus(root)
    seconds = _full_build_seconds(root, tmp_path / "timing.sqlite")
    moments = [seconds * fraction for fraction in (0.0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0)]
    for number, moment in enumerate(moments):
        index = tmp_path / f"index-{number}.sqlite"
        process = _build(root, index)
        assert process.stdout is not None
        process.stdout.readline()
        time.sleep(moment)
        how = KILLS[number % len(KILLS)]
        if process.poll() is None:
            os.kill(process.pid, how)
            if how == signal.SIGINT:  # a client often follows SIGINT with SIGTERM
                time.sleep(0.1)
                if process.poll() is None:
                    os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
        with Workspace([root], index_path=index, watch=False) as ws:
            ws.ensure_index(progress=False)
            assert ws.store.pending_symbols() == 0
        _check_complete(root, index)


def _one_file_built(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace of one file defining ``main`` on line 1, and its complete index."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    index = tmp_path / "index.sqlite"
    with Workspace([root], index_path=index, watch=False) as ws:
        ws.ensure_index(progress=False)
        assert ws.store.count_symbols() >= 1
    return root, index


def test_a_file_whose_symbols_were_never_stored_is_parsed_again(tmp_path: Path) -> None:
    """The state a kill between a file's text and its symbols leaves (made by hand here)."""
    root, index = _one_file_built(tmp_path)
    conn = sqlite3.connect(index)
    conn.execute("DELETE FROM symbols")
    conn.execute("UPDATE files SET symbols_pending = 1")
    conn.commit()
    conn.close()
    with Workspace([root], index_path=index, watch=False) as ws:
        stats = ws.ensure_index(progress=False)
        assert stats.indexed == 0  # the text is kept; only the symbols are parsed again
        hits = ws.store.definitions_named(["main"], 10)
        assert [(name, line) for _, name, line, _ in hits] == [("main", 1)]


def test_a_first_build_cut_short_after_its_last_file_gets_its_usual_settings_back(
        tmp_path: Path) -> None:
    """The state a kill between the first build's last file and its end leaves (made by
    hand here): the full-text tables' first-build settings stored and the symbol name
    index dropped, with nothing left to index. Left so, no later update would ever merge
    the tables' segments, and every look-up of a name would read every symbol."""
    root, index = _one_file_built(tmp_path)
    conn = sqlite3.connect(index)
    set_fts(conn, FIRST_BUILD_FTS)
    conn.execute("DROP INDEX symbols_folded")
    conn.commit()
    conn.close()
    with Workspace([root], index_path=index, watch=False) as ws:
        stats = ws.ensure_index(progress=False)
        assert stats.indexed == 0
        hits = ws.store.definitions_named(["main"], 10)
        assert [(name, line) for _, name, line, _ in hits] == [("main", 1)]
    conn = sqlite3.connect(index)
    try:
        for table in FTS_TABLES:
            settings = dict(conn.execute(f"SELECT k, v FROM {table}_config"))
            assert {key: settings.get(key, value) for key, value in USUAL_FTS.items()} \
                == USUAL_FTS, table
        assert conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'"
                            " AND name = 'symbols_folded'").fetchall() == [("symbols_folded",)]
    finally:
        conn.close()
