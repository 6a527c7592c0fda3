"""How the full-text tables are built: their segments merged once after a first build,
their usual settings back for the updates that follow, and texts added in runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.index import indexer
from sari_core.engine.index.build_settings import FTS_TABLES, USUAL_FTS
from sari_core.models import SearchCall


def _segments(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0])


def _settings(conn: sqlite3.Connection, table: str) -> dict[str, int]:
    """The table's settings USUAL_FTS names (FTS5's defaults where none was stored)."""
    stored = dict(conn.execute(f"SELECT k, v FROM {table}_config"))
    return {key: int(stored.get(key, value)) for key, value in USUAL_FTS.items()}


def _intact(conn: sqlite3.Connection) -> None:
    for table in FTS_TABLES:  # raises on a corrupt full-text index
        conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 0)")


def _tree(root: Path, count: int, word: str) -> None:
    for n in range(count):
        (root / f"m{n}.py").write_text(
            f"class {word.title()}{n}:\n    def {word}_{n}(self):\n        return '{word}'\n",
            encoding="utf-8")
        (root / f"n{n}.md").write_text(f"{word} notes {n}\n", encoding="utf-8")


def test_a_first_build_leaves_one_segment_per_table_and_the_usual_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Many small transactions each flush a segment; merged as they came (FTS5's default)
    # they cost the build more CPU and left several segments for every query to read.
    monkeypatch.setattr(indexer, "BULK_FILES", 5)
    monkeypatch.setattr(indexer, "BATCH_FILES", 3)
    _tree(tmp_path, 40, "zebra")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        conn = engine.store.reader
        for table in FTS_TABLES:
            assert _segments(conn, table) == 1, table
            assert _settings(conn, table) == USUAL_FTS, table
        _intact(conn)
        assert engine.search(SearchCall(query="zebra_39", kind="text")).total == 1
        _tree(tmp_path, 40, "okapi")  # a later refresh: the usual settings, no merge at once
        engine.indexer.refresh()
        _intact(conn)
        assert engine.search(SearchCall(query="okapi_39", kind="text")).total == 1
        assert engine.search(SearchCall(query="zebra_39", kind="text")).total == 0
        assert engine.search(SearchCall(query="okapi notes", kind="text")).total == 40


def test_a_cancelled_first_build_puts_the_usual_settings_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "BULK_FILES", 5)
    _tree(tmp_path, 8, "zebra")
    index = tmp_path / "index.sqlite"
    with Workspace([tmp_path], index_path=index, watch=False) as engine:
        engine.indexer.cancelled.set()  # as close() does while a build runs
        engine.indexer.refresh()
        for table in FTS_TABLES:
            assert _settings(engine.store.reader, table) == USUAL_FTS, table


def test_a_text_replaced_in_the_transaction_that_added_it_leaves_no_trigram(
        tmp_path: Path) -> None:
    # Texts wait to be added to the trigram index together; removing one of them must add
    # it first (a contentless table forgets a row by being given its text again).
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        store = engine.store
        with store.transaction() as conn:
            first = store.put_file(conn, None, 0, "a.txt", 5, 1, "h1", None, "text",
                                   "zebra stripes\n", "utf-8", 1)
            row = store.file(0, "a.txt", conn)
            assert row is not None and row.id == first
            store.put_file(conn, row, 0, "a.txt", 5, 2, "h2", None, "text", "okapi\n",
                           "utf-8", 2)
        _intact(store.reader)
        assert store.count_match('"zeb"') == 0
        assert store.count_match('"oka" AND "api"') == 1
