"""The index database: where it lives, its schema, and rebuilding it when it is unusable.

One SQLite file per workspace in the user's cache folder (never in the workspace):
``cache_dir()/index/<workspace_hash>.sqlite``, in WAL mode so searches read while
the indexer writes. ``files`` holds what was seen on disk, ``contents`` the text of
every text file (compressed), ``fts`` (FTS5, trigram tokenizer, contentless, no positions,
``rowid = files.id``) its case-folded trigram index, which selects the candidates of a
substring search, ``symbols`` the tree-sitter definitions, ``file_references`` each source
file's references packed in one value (:mod:`sari_core.engine.index.references`) and
``reference_names`` the names they use, ``word_chunks`` and ``words`` (FTS5,
contentless) the word index of :mod:`sari_core.engine.index.word_index`. A database that is
corrupt, of another schema version, or marked damaged (``meta.damaged``: an index found
out of step with its own text) is deleted and rebuilt, with a log message.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import lz4.block

from sari_core.locations import cache_dir, private_file

log = logging.getLogger(__name__)

# 10: one symbol name index (folded names); 11: texts compressed; 12: symbols in file order;
# 13: the word index leaves licence headers out; 14: constants, type aliases, fields,
# constructors and object keys of every language are definitions; 15: references packed per
# file, out of the symbols table, a file's word chunks found from files.first_chunk, kinds
# stored as small integers
SCHEMA_VERSION = 15
BUSY_TIMEOUT_MS = 30_000
CACHE_KIB = -65536  # each connection's page cache (64 MiB)
MMAP_BYTES = 1 << 30  # readers map the index: verifying candidates reads it several times faster
# ``files.symbols_pending``: the file's parse and word chunks are still to come (a first
# build's second phase stores them); its word chunks are cut along its definition lines and
# its parse waits for a query needing it (a build parsing on demand); parsed since, those
# chunks kept.
PARSE_PENDING = 1
PARSE_DEFERRED = 2
PARSED_CHUNKS_AS_CUT = 3

# The symbol name index. A first build of a large tree creates it after its rows (an index
# built at once costs half of one grown row by row); the scan answers searches meanwhile.
# Exact and prefix look-ups of a name, in any case or spelling, are ranges of it: equal
# names have equal folded names, so ``name = ?`` is asked as ``folded = ? AND name = ?``.
# (A second index on the name itself took a fifth of the text's size for nothing else.)
NAME_INDEXES = (
    "CREATE INDEX IF NOT EXISTS symbols_folded ON symbols (folded);",
)

# The kinds most rows have, stored as their place in this tuple (an integer of a byte or
# none instead of a word); any other kind is stored as it is. Changing the tuple changes the
# schema (its version with it).
KINDS = ("function", "method", "class", "constant", "text", "variable", "field", "property",
         "interface", "type", "struct", "enum", "module", "constructor")
KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}
# ``kind`` reads the same as a column of words would: a generated column over the two.
_KIND = ("kind TEXT GENERATED ALWAYS AS (coalesce(kind_name, CASE kind_code "
         + " ".join(f"WHEN {code} THEN '{kind}'" for code, kind in enumerate(KINDS))
         + " END)) VIRTUAL")


def kind_columns(kind: str) -> tuple[int | None, str | None]:
    """``(kind_code, kind_name)`` storing ``kind``."""
    code = KIND_CODES.get(kind)
    return (code, None) if code is not None else (None, kind)


DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    root INTEGER NOT NULL,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    language TEXT,
    kind TEXT NOT NULL,          -- text | binary | large
    ascii INTEGER NOT NULL DEFAULT 0,
    lines INTEGER NOT NULL DEFAULT 0,
    encoding TEXT,
    checked_ns INTEGER NOT NULL, -- when this row was last compared with the disk
    -- 1 until the file's symbols are stored: a build killed before that leaves the row
    -- marked, and the next refresh indexes the file again (the index heals). 2: its word
    -- chunks are cut along its definition lines and its parse waits for a query needing
    -- it; 3: parsed since, those chunks kept (PARSE_PENDING, PARSE_DEFERRED, ...).
    symbols_pending INTEGER NOT NULL DEFAULT 0,
    -- the id of its first word chunk: a file's chunks have consecutive ids (word_index)
    first_chunk INTEGER,
    UNIQUE (root, path)
);
-- The text of every text file (rowid = files.id) as UTF-8, LZ4-compressed: a third of
-- its size, and decompressed several times faster than any check reads it (pack_text).
CREATE TABLE IF NOT EXISTS contents (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
-- Contentless trigram index of contents (case-folded): rows leave it with 'delete'. No
-- positions (detail 'none': a quarter of the size, and cheaper to build): a query selects
-- the files holding all of a literal's trigrams, and the engine checks each candidate.
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text, content = '', tokenize = 'trigram', detail = 'none', columnsize = 0
);
-- The definitions, kept in the order of their files (no rowid): a file's symbols are one
-- range of the table, which an index on file_id (0.16x the text) gave before.
CREATE TABLE IF NOT EXISTS symbols (
    file_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,        -- the row's place among its file's symbols, from 0
    name TEXT NOT NULL,
    -- the name without case or word separators (engine.index.names), stored only when it is
    -- not the name in lower case (most names): the column reads the same either way
    folded_apart TEXT,
    folded TEXT GENERATED ALWAYS AS (coalesce(folded_apart, lower(name))) VIRTUAL,
    kind_code INTEGER,           -- the kind as its place in KINDS, else NULL
    kind_name TEXT,              -- the kind when it is not in KINDS
    """ + _KIND + """,
    is_def INTEGER GENERATED ALWAYS AS (1) VIRTUAL,  -- every row is a definition
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    PRIMARY KEY (file_id, seq)
) WITHOUT ROWID;
-- A source file's references (calls, bases, types: four in five of its symbols), packed
-- in one value (engine.index.references): found by name through the trigram index, which
-- selects the files that may name it. ``refs`` counts them.
CREATE TABLE IF NOT EXISTS file_references (
    file_id INTEGER PRIMARY KEY,
    refs INTEGER NOT NULL,
    data BLOB NOT NULL
);
-- Every name a stored reference uses (folded as symbols.folded): what a prefix or fuzzy
-- query lists beside the defined names. A name no file uses any more stays (finding that
-- out would cost every change a look at every file naming it): readers check it.
CREATE TABLE IF NOT EXISTS reference_names (
    folded TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (folded, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_pending ON files (symbols_pending) WHERE symbols_pending;
-- The word index (engine/index/word_index.py): chunks of a file's code words, ranked by BM25.
-- The words themselves are only in the FTS table (contentless): a chunk's row says where
-- it is; its words are computed again from the file's text and definitions to delete it.
-- A file's chunks are the ids from its files.first_chunk on (no index on file_id).
CREATE TABLE IF NOT EXISTS word_chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    scope TEXT NOT NULL,         -- the definition's qualified name ('' outside definitions)
    kind_code INTEGER,
    kind_name TEXT,
    """ + _KIND + """
);
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(
    name, body, path, content = '', tokenize = 'porter unicode61'
);
""" + "\n".join(NAME_INDEXES) + "\n"


# LZ4's high-compression mode at a low level: a text in a third of its size (zlib's
# best is a quarter, but checking a common literal's thousands of candidates would then
# spend most of its time decompressing: LZ4 gives the bytes back at gigabytes a second).
TEXT_COMPRESSION_LEVEL = 2


def pack_text(text: str) -> bytes:
    """A file's text as stored in ``contents``."""
    return lz4.block.compress(text.encode("utf-8"), mode="high_compression",
                              compression=TEXT_COMPRESSION_LEVEL, store_size=True)


def unpack_utf8(data: bytes) -> bytes:
    """A stored text's UTF-8 bytes."""
    return lz4.block.decompress(data)


def unpack_text(data: bytes) -> str:
    return lz4.block.decompress(data).decode("utf-8")


class IndexUnavailable(RuntimeError):
    """SQLite lacks FTS5 or the trigram tokenizer (SQLite < 3.34)."""


class IndexBusy(RuntimeError):
    """Another process held the index's write lock past the busy timeout. The index is in
    use, not damaged: it is left as it is (deleting it would lose that process's work)."""

    def __init__(self, path: Path, cause: sqlite3.Error) -> None:
        super().__init__(f"index {path} stayed locked by another process for "
                         f"{BUSY_TIMEOUT_MS // 1000} s ({cause}); try again when its build "
                         "has finished")
        self.path = path


# SQLite's result codes for a lock another connection holds.
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED


def _busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11 and later
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


def workspace_key(roots: Sequence[Path]) -> str:
    """``workspace_hash`` of the root (of all roots, joined, when there are several)."""
    text = "\n".join(os.fspath(root).replace("\\", "/") for root in roots)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def default_index_path(roots: Sequence[Path]) -> Path:
    return cache_dir() / "index" / f"{workspace_key(roots)}.sqlite"


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    uri = f"{path.as_uri()}?mode=ro" if readonly else path.as_uri()
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                           check_same_thread=False, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute(f"PRAGMA cache_size = {CACHE_KIB}")
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    if not readonly:
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")


def _version(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else None


def _damaged(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'damaged'").fetchone()
    return str(row[0]) if row else None


def mark_damaged(conn: sqlite3.Connection, what: str) -> None:
    """Have the next open rebuild the index (it found itself out of step)."""
    log.warning("sari: %s; the index will be rebuilt when it is next opened.", what)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('damaged', ?)", (what,))


def _has_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'meta'").fetchone()
    return bool(row[0])


def _create(conn: sqlite3.Connection) -> None:
    try:
        conn.executescript(DDL)
    except sqlite3.OperationalError as exc:
        raise IndexUnavailable(f"this SQLite ({sqlite3.sqlite_version}) cannot build the index "
                               f"(FTS5 with the trigram tokenizer is needed): {exc}") from exc
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                 (str(SCHEMA_VERSION),))


def open_index(path: Path) -> sqlite3.Connection:
    """The writer connection of a usable index at ``path``, rebuilding it when needed."""
    for attempt in (1, 2):
        conn: sqlite3.Connection | None = None
        try:
            private_file(path)  # 0600 before SQLite creates it (and its -wal and -shm)
            fresh = not path.exists() or path.stat().st_size == 0
            conn = connect(path)
            if fresh:
                # Free pages can be given back (build_settings.first_build does at a build's
                # end: FTS5 merging its segments frees as many pages as the word index
                # holds). Settable only in a file still empty, before WAL mode writes its
                # first page. Never asked of an existing index: the pragma takes the write
                # lock, and another process's long write (a build) would make it fail.
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
            if _has_tables(conn):
                version = _version(conn)
                damaged = _damaged(conn)
                if damaged is not None:
                    log.warning("sari: index %s is damaged (%s); rebuilding it.", path, damaged)
                elif version == SCHEMA_VERSION:
                    # Touch every structure: a damaged file fails here, not mid-search.
                    conn.execute("SELECT count(*) FROM files").fetchone()
                    conn.execute("SELECT rowid FROM fts WHERE fts MATCH '\"sar\"' LIMIT 1"
                                 ).fetchall()
                    return conn
                else:
                    log.warning("sari: index %s has schema version %s, this sari needs %s; "
                                "rebuilding it.", path, version, SCHEMA_VERSION)
                conn.close()
                conn = None
                _remove(path)
                continue
            _create(conn)
            return conn
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if _busy(exc):  # another process writes it (a build): in use, not damaged
                raise IndexBusy(path, exc) from exc
            if attempt == 2:
                raise
            log.warning("sari: index %s is unusable (%s); rebuilding it.", path, exc)
            _remove(path)
    raise RuntimeError("unreachable")  # pragma: no cover


def index_bytes(path: Path) -> int:
    """The index's size on disk, its write-ahead log included."""
    return sum(os.path.getsize(f"{path}{suffix}") for suffix in ("", "-wal")
               if os.path.exists(f"{path}{suffix}"))
