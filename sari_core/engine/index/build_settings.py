"""How the index's writer works through a large build, and through a first one.

* A large build (many files at once) commits without fsync: the index is a cache, and a
  build cut short is completed by the next refresh (files are marked done last).
* A first build also stores rows before the indexes over them: the symbol name index is
  dropped and built after the rows (built at once, it costs half of one grown row by
  row), and the full-text tables' segments are merged once, at the end, instead of as
  they come (:data:`FIRST_BUILD_FTS`). Their usual settings come back afterwards, even
  when the build is cancelled: the small updates that follow want them. A build killed
  before that gets them back on the next refresh that is not a first build
  (:func:`settle_fts`): left so, no later update would ever merge their segments.
  At its end the pages the merges freed are given back to the file system (the index is
  created with ``auto_vacuum = INCREMENTAL``): the word index's merge frees as many
  pages as it keeps, and a second phase has nothing after it to reuse them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sari_core.engine.index.schema import CACHE_KIB, NAME_INDEXES

BULK_CACHE_KIB = -16384  # the writer's page cache during a large build (16 MiB)
FTS_TABLES = ("fts", "words")
# FTS5 during a first build: pending rows flushed into a new segment every 256 KiB (its
# default, 1 MiB, is a working set the CPU's caches hold less well: the trigram index's
# inserts cost more), segments merged only when 16 pile up at one level ('crisismerge'),
# then all at once ('optimize': one segment per table, also the smallest).
FIRST_BUILD_FTS = {"hashsize": 256 * 1024, "automerge": 0}
USUAL_FTS = {"hashsize": 1024 * 1024, "automerge": 4}  # FTS5's defaults


def set_fts(conn: sqlite3.Connection, settings: dict[str, int],
            tables: tuple[str, ...] = FTS_TABLES) -> None:
    """Store ``settings`` in each full-text table's configuration (they persist)."""
    for table in tables:
        for name, value in settings.items():
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES (?, ?)", (name, value))


def settle_fts(conn: sqlite3.Connection) -> list[str]:
    """Give the usual settings back to each full-text table a first build left with its
    own, and merge its segments as that build's end would have.

    :return: the tables that needed it.
    """
    unsettled = []
    for table in FTS_TABLES:
        stored = dict(conn.execute(f"SELECT k, v FROM {table}_config"))
        if any(stored.get(name, value) != value for name, value in USUAL_FTS.items()):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            set_fts(conn, USUAL_FTS, (table,))
            unsettled.append(table)
    return unsettled


@contextmanager
def bulk(conn: sqlite3.Connection, lock: threading.RLock, enabled: bool) -> Iterator[None]:
    """A large build: no fsync per commit (the index is a cache; a crash means a rebuild)."""
    if not enabled:
        yield
        return
    with lock:
        conn.execute("PRAGMA synchronous = OFF")
        # Appending rows needs few cached pages (the name index comes after the rows).
        conn.execute(f"PRAGMA cache_size = {BULK_CACHE_KIB}")
    try:
        yield
    finally:
        with lock:
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA cache_size = {CACHE_KIB}")


@contextmanager
def first_build(conn: sqlite3.Connection, lock: threading.RLock, enabled: bool,
                keep: Callable[[], bool], tables: tuple[str, ...] = FTS_TABLES,
                name_index: bool = True) -> Iterator[None]:
    """Rows first, the indexes over them after (see the module's docstring).

    :param keep: whether to build the indexes on the way out (not when the build is
        being cancelled: the next refresh builds them, as one left them missing).
    :param tables: the full-text tables this build fills (the first phase fills the
        trigram index, the second the word index).
    :param name_index: drop the symbol name index and build it after the rows.
    """
    if enabled:
        with lock:
            if name_index:
                conn.execute("DROP INDEX IF EXISTS symbols_folded")
            set_fts(conn, FIRST_BUILD_FTS, tables)
    try:
        yield
    finally:
        if enabled:
            with lock:
                if keep():
                    for table in tables:
                        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
                set_fts(conn, USUAL_FTS, tables)
    if keep():
        with lock:
            # Sorted in temporary files, not in memory (the connections' default): at
            # 1.8M symbols, 124 MB of resident memory and more CPU than on disk.
            conn.execute("PRAGMA temp_store = FILE")
            try:
                for statement in NAME_INDEXES:  # no-ops where they exist
                    conn.execute(statement)
            finally:
                conn.execute("PRAGMA temp_store = MEMORY")
            # the pages the merges freed and nothing after them reused leave the file
            # (run whole by a script: execute() steps the pragma once, a page a step)
            conn.executescript("PRAGMA incremental_vacuum;")
