"""Reads and writes of the index database, behind one writer lock.

Writes go through one connection guarded by a lock (the indexer, change
detection and mutations share it). Reads use one connection per thread, so a
search never waits for an index batch: WAL lets it read the last commit.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from sari_core.engine.index import build_settings, references, word_index
from sari_core.engine.index.grammars import GRAMMARS
from sari_core.engine.index.names import folded_name
from sari_core.engine.index.schema import (
    KIND_CODES,
    PARSE_DEFERRED,
    PARSE_PENDING,
    PARSED_CHUNKS_AS_CUT,
    connect,
    kind_columns,
    open_index,
    pack_text,
)
from sari_core.engine.index.stored_texts import StoredTexts, chunks
from sari_core.engine.index.symbols import SymbolRow
from sari_core.engine.index.trigrams import phrase, selects

ANALYSIS_ROWS = 1000  # rows of each index PRAGMA optimize looks at
TRIGRAM_ROWS_BYTES = 4 * 1024 * 1024  # texts added to the trigram index together
FOLDED_NAMES = 100_000  # names whose folded form is remembered (names repeat: every call)
REFERENCE_NAMES = 200_000  # names the writer remembers having stored in reference_names


@dataclass(frozen=True)
class FileRow:
    id: int
    root: int
    path: str
    size: int
    mtime_ns: int
    hash: str
    language: str | None
    kind: str
    ascii: bool
    lines: int
    encoding: str | None
    checked_ns: int
    symbols_pending: bool = False  # its symbols are not stored yet (a build was cut short)
    parse_deferred: bool = False  # its parse waits for a query that needs it


FILE_COLUMNS = ("id, root, path, size, mtime_ns, hash, language, kind, ascii, lines, encoding, "
                "checked_ns, symbols_pending")


def _file(row: Sequence[Any]) -> FileRow:
    return FileRow(int(row[0]), int(row[1]), str(row[2]), int(row[3]), int(row[4]),
                   str(row[5]), row[6], str(row[7]), bool(row[8]), int(row[9]), row[10],
                   int(row[11]), row[12] == PARSE_PENDING, row[12] == PARSE_DEFERRED)


@dataclass(frozen=True)
class SymbolHit:
    file_id: int
    root: int
    path: str
    name: str
    kind: str
    is_def: bool
    line: int
    end_line: int
    folded: str = ""  # the name without case or word separators (engine.index.names.folded)


class ReferenceHit(NamedTuple):
    """One stored reference (a tuple: a common name has thousands)."""

    file_id: int
    root: int
    path: str
    name: str
    kind: str
    line: int


def _folded_apart(name: str) -> str | None:
    """What ``symbols.folded_apart`` stores for ``name``: its folded form, or None when
    that is the name in lower case (SQLite's ``lower`` folds ASCII letters only)."""
    if name.isascii():  # most names: their folded form without splitting them into words
        if name.isalnum():
            return None  # letters and digits only: folded, it is the name in lower case
        bare = name.replace("_", "")
        if bare.isalnum():
            return bare.lower()
    folded = folded_name(name)
    return None if name.isascii() and folded == name.lower() else folded


class IndexStore(StoredTexts):
    """The index database of one workspace."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer = open_index(path)
        # The writer reads little (a file's row, its old text): mapped, every page it
        # touched would count in the process's resident memory (a large build's index).
        self._writer.execute("PRAGMA mmap_size = 0")
        self.lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._fts_settled = False  # settle_fts found nothing to do (it is asked once)
        self._trigram_rows: list[tuple[int, str]] = []  # (file id, text) to add to fts
        self._trigram_bytes = 0
        self._folded: dict[str, str | None] = {}  # name -> _folded_apart(name), for the writer
        self._reference_names: set[str] = set()  # names known to be in reference_names
        self._deferred_any: bool | None = None  # whether a file's parse is deferred
        # Parses the deferred files a name's references may be in, before they are read
        # (set by the indexer of a build parsing on demand).
        self.parse_for_references: Callable[[Sequence[str], Sequence[int] | None], object] \
            | None = None

    # --- connections ----------------------------------------------------------------

    @property
    def reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn  # type: ignore[no-any-return]

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The writer connection inside BEGIN IMMEDIATE ... COMMIT, under the writer lock."""
        with self.lock:
            self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
                self._flush_trigrams(self._writer)
            except BaseException:
                self._trigram_rows.clear()
                self._trigram_bytes = 0
                self._reference_names.clear()  # those it stored are gone again
                self._writer.execute("ROLLBACK")
                raise
            self._writer.execute("COMMIT")

    def _flush_trigrams(self, conn: sqlite3.Connection) -> None:
        """Add the texts waiting for the trigram index to it, one after the other: its
        inserts cost less in a row than between other work (its working set stays in the
        CPU's caches)."""
        if self._trigram_rows:
            conn.executemany("INSERT INTO fts (rowid, text) VALUES (?, ?)", self._trigram_rows)
            self._trigram_rows.clear()
            self._trigram_bytes = 0

    def bulk(self, enabled: bool = True) -> AbstractContextManager[None]:
        """A large build (:func:`sari_core.engine.index.build_settings.bulk`)."""
        return build_settings.bulk(self._writer, self.lock, enabled)

    def first_build(self, enabled: bool, keep: Callable[[], bool],
                    tables: tuple[str, ...] = build_settings.FTS_TABLES,
                    name_index: bool = True) -> AbstractContextManager[None]:
        """A first build (:func:`sari_core.engine.index.build_settings.first_build`); any other
        build first settles what a first build killed before its end left
        (:func:`sari_core.engine.index.build_settings.settle_fts`)."""
        if not enabled and not self._fts_settled:
            with self.lock:
                build_settings.settle_fts(self._writer)
            self._fts_settled = True
        return build_settings.first_build(self._writer, self.lock, enabled, keep, tables,
                                          name_index)

    def close(self) -> None:
        with self.lock:
            if self._closed:
                return
            self._closed = True
            with self._readers_lock:
                for conn in self._readers:
                    conn.close()
                self._readers.clear()
            with suppress(sqlite3.Error):
                # Statistics from a sample of each index (SQLite's advice), not a read of
                # all of it: that read made closing the largest memory peak after a build.
                self._writer.execute(f"PRAGMA analysis_limit = {ANALYSIS_ROWS}")
                self._writer.execute("PRAGMA optimize")
            self._writer.close()

    # --- meta -----------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.reader.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # --- files ----------------------------------------------------------------------

    def all_files(self) -> dict[tuple[int, str], FileRow]:
        rows = self.reader.execute(f"SELECT {FILE_COLUMNS} FROM files").fetchall()
        return {(int(r[1]), str(r[2])): _file(r) for r in rows}

    def text_file_ids(self, keys: Iterable[tuple[int, str]]) -> dict[tuple[int, str], int]:
        """(root, path) -> id of those of ``keys`` that are indexed text files."""
        out: dict[tuple[int, str], int] = {}
        for root, path in keys:
            row = self.reader.execute("SELECT id FROM files WHERE root = ? AND path = ? AND "
                                      "kind = 'text'", (root, path)).fetchone()
            if row is not None:
                out[(root, path)] = int(row[0])
        return out

    def file_stats(self) -> list[tuple[int, str, int, int]]:
        """(root, path, size, mtime_ns) of every file: what a stat check compares."""
        return self.reader.execute("SELECT root, path, size, mtime_ns FROM files").fetchall()

    def file(self, root: int, path: str, conn: sqlite3.Connection | None = None
             ) -> FileRow | None:
        """One file's row (pass the writer ``conn`` inside a transaction to see its writes)."""
        row = (conn or self.reader).execute(
            f"SELECT {FILE_COLUMNS} FROM files WHERE root = ? AND path = ?", (root, path)
        ).fetchone()
        return _file(row) if row else None

    def files_under(self, root: int, prefix: str) -> list[FileRow]:
        """Rows of the files below folder ``prefix`` ("" = the whole root)."""
        if not prefix:
            rows = self.reader.execute(f"SELECT {FILE_COLUMNS} FROM files WHERE root = ?",
                                       (root,))
        else:
            rows = self.reader.execute(
                f"SELECT {FILE_COLUMNS} FROM files WHERE root = ? AND path >= ? AND path < ?",
                (root, prefix + "/", prefix + "0"))  # "0" sorts right after "/"
        return [_file(row) for row in rows]

    def hash_of(self, conn: sqlite3.Connection, file_id: int) -> str | None:
        row = conn.execute("SELECT hash FROM files WHERE id = ?", (file_id,)).fetchone()
        return str(row[0]) if row else None

    def files_by_id(self, ids: Iterable[int]) -> dict[int, FileRow]:
        out: dict[int, FileRow] = {}
        for part in chunks(list(ids)):
            marks = ",".join("?" * len(part))
            for row in self.reader.execute(
                    f"SELECT {FILE_COLUMNS} FROM files WHERE id IN ({marks})", tuple(part)):
                out[int(row[0])] = _file(row)
        return out

    def text_files(self) -> list[FileRow]:
        rows = self.reader.execute(
            f"SELECT {FILE_COLUMNS} FROM files WHERE kind = 'text' ORDER BY root, path")
        return [_file(row) for row in rows]

    def count_files(self) -> tuple[int, int]:
        row = self.reader.execute(
            "SELECT count(*), coalesce(sum(kind = 'text'), 0) FROM files").fetchone()
        return int(row[0]), int(row[1])

    def count_symbols(self) -> int:
        """Definitions and references."""
        return int(self.reader.execute(
            "SELECT (SELECT count(*) FROM symbols) "
            "+ (SELECT coalesce(sum(refs), 0) FROM file_references)").fetchone()[0])

    def put_file(self, conn: sqlite3.Connection, previous: FileRow | None, root: int, path: str,
                 size: int, mtime_ns: int, digest: str, language: str | None, kind: str,
                 text: str | None, encoding: str | None, checked_ns: int,
                 symbols_pending: bool = False) -> int:
        """Insert or replace one file's row, its text and (by clearing) its symbols.

        :param symbols_pending: the file's symbols (and word chunks) come later, from a
            worker or in a first build's second phase (:meth:`put_symbols` clears the
            mark); until then a refresh treats the file as changed.
        """
        values = (size, mtime_ns, digest, language, kind, int(bool(text is not None
                                                                    and text.isascii())),
                  text.count("\n") + (1 if text and not text.endswith("\n") else 0)
                  if text else 0, encoding, checked_ns, int(symbols_pending))
        if previous is None:
            cursor = conn.execute(
                "INSERT INTO files (size, mtime_ns, hash, language, kind, ascii, lines, encoding,"
                " checked_ns, symbols_pending, root, path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (*values, root, path))
            file_id = int(cursor.lastrowid or 0)
        else:
            file_id = previous.id
            word_index.remove_file(conn, file_id)  # while its old text and symbols are here
            conn.execute(
                "UPDATE files SET size=?, mtime_ns=?, hash=?, language=?, kind=?, ascii=?, "
                "lines=?, encoding=?, checked_ns=?, symbols_pending=? WHERE id = ?",
                (*values, file_id))
            if previous.kind == "text":
                self._delete_text(conn, file_id)
            self._delete_symbols(conn, file_id)
        if text is not None:
            conn.execute("INSERT INTO contents (id, data) VALUES (?, ?)",
                         (file_id, pack_text(text)))
            self._trigram_rows.append((file_id, text))
            self._trigram_bytes += len(text)
            if self._trigram_bytes >= TRIGRAM_ROWS_BYTES:
                self._flush_trigrams(conn)
        # Words: a source file's chunks follow its definitions (put_symbols), others' now.
        if text is not None and language not in GRAMMARS:
            word_index.put_file(conn, file_id, text)
        return file_id

    def _delete_text(self, conn: sqlite3.Connection, file_id: int) -> None:
        self._flush_trigrams(conn)  # the row to delete may be one of them
        old = self.text_of(file_id, conn)
        if old is not None:  # a contentless table forgets a row given its old text
            conn.execute("INSERT INTO fts (fts, rowid, text) VALUES ('delete', ?, ?)",
                         (file_id, old))
        conn.execute("DELETE FROM contents WHERE id = ?", (file_id,))

    def touch_file(self, conn: sqlite3.Connection, file_id: int, size: int, mtime_ns: int,
                   checked_ns: int) -> None:
        """Same content, new stat: remember it so the next comparison is cheap."""
        conn.execute("UPDATE files SET size=?, mtime_ns=?, checked_ns=? WHERE id=?",
                     (size, mtime_ns, checked_ns, file_id))

    def delete_file(self, conn: sqlite3.Connection, row: FileRow) -> None:
        word_index.remove_file(conn, row.id)  # first: its words are computed from its text
        if row.kind == "text":
            self._delete_text(conn, row.id)
        self._delete_symbols(conn, row.id)
        conn.execute("DELETE FROM files WHERE id = ?", (row.id,))

    def put_symbols(self, conn: sqlite3.Connection, file_id: int, symbols: references.Split,
                    chunks: list[word_index.Chunk] | None = None) -> None:
        """Store a file's symbols (none is an answer too) and clear its pending mark.

        :param symbols: its definitions, and its references packed
            (:func:`sari_core.engine.index.references.split` of a parse).
        :param chunks: the file's word chunks, computed by an index worker from its text
            and these symbols' definitions; else they are computed here.
        """
        definitions = symbols[0]
        # Chunks a worker cut from the stored text need only know it is still there: the
        # text is read (and decompressed) only to cut them here.
        if chunks is None:
            text = self.text_of(file_id, conn)
        elif conn.execute("SELECT 1 FROM contents WHERE id = ?", (file_id,)).fetchone():
            text = ""  # put_file takes the chunks as they are
        else:
            text, chunks = None, None
        word_index.remove_file(conn, file_id)  # symbols stored twice: the last ones count
        # (and a file's definition lines, stored by the first phase, give way to these)
        self._replace_parse(conn, file_id, symbols)
        conn.execute("UPDATE files SET symbols_pending = 0 WHERE id = ? AND symbols_pending",
                     (file_id,))
        self._deferred_any = None
        if text is not None:
            word_index.put_file(conn, file_id, text, () if chunks is not None else [
                (name, kind, line, end_line) for name, kind, _, line, end_line in definitions],
                chunks)

    def _replace_parse(self, conn: sqlite3.Connection, file_id: int,
                       symbols: references.Split) -> None:
        """Make a file's definitions and packed references those of ``symbols``."""
        definitions, packed = symbols
        conn.execute("DELETE FROM file_references WHERE file_id = ?", (file_id,))
        self._replace_symbols(conn, file_id, definitions)
        if packed:
            conn.execute("INSERT INTO file_references (file_id, refs, data) VALUES (?, ?, ?)",
                         (file_id, references.count(packed), packed))
            self._store_reference_names(conn, references.names(packed))

    def _delete_symbols(self, conn: sqlite3.Connection, file_id: int) -> None:
        conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM file_references WHERE file_id = ?", (file_id,))

    def _store_reference_names(self, conn: sqlite3.Connection, names: list[str]) -> None:
        known = self._reference_names
        new = [name for name in names if name not in known]
        if not new:
            return
        if len(known) + len(new) > REFERENCE_NAMES:
            known.clear()
        conn.executemany("INSERT OR IGNORE INTO reference_names (folded, name) VALUES (?, ?)",
                         ((folded_name(name), name) for name in new))
        known.update(new)

    def _replace_symbols(self, conn: sqlite3.Connection, file_id: int,
                         definitions: Sequence[SymbolRow]) -> None:
        """Make a file's rows ``definitions``, in their order, writing only the rows that
        differ: a row keeping its name keeps its name-index entry. (The second phase's
        definitions are mostly the first phase's, in the same order; deleting and inserting
        them again cost their name-index entries twice.)"""
        old = conn.execute("SELECT name, kind_code, kind_name, line, end_line FROM symbols "
                           "WHERE file_id = ? ORDER BY seq", (file_id,)).fetchall()
        if not old:
            self._insert_symbols(conn, file_id, definitions)
            return
        rows = [(name, *kind_columns(kind), line, end_line)
                for name, kind, _, line, end_line in definitions]
        moved, renamed = [], []
        for seq, (before, after) in enumerate(zip(old, rows, strict=False)):
            if before == after:
                continue
            if before[0] == after[0]:
                moved.append((*after[1:], file_id, seq))
            else:
                renamed.append((after[0], self._folded_of(after[0]), *after[1:], file_id, seq))
        conn.executemany("UPDATE symbols SET kind_code = ?, kind_name = ?, line = ?, "
                         "end_line = ? WHERE file_id = ? AND seq = ?", moved)
        conn.executemany("UPDATE symbols SET name = ?, folded_apart = ?, kind_code = ?, "
                         "kind_name = ?, line = ?, end_line = ? WHERE file_id = ? AND seq = ?",
                         renamed)
        if len(old) > len(rows):
            conn.execute("DELETE FROM symbols WHERE file_id = ? AND seq >= ?",
                         (file_id, len(rows)))
        else:
            self._insert_symbols(conn, file_id, definitions[len(old):], len(old))

    def _folded_of(self, name: str) -> str | None:
        folded = self._folded
        if name not in folded:
            if len(folded) > FOLDED_NAMES:
                folded.clear()
            folded[name] = _folded_apart(name)
        return folded[name]

    def _insert_symbols(self, conn: sqlite3.Connection, file_id: int,
                        symbols: Sequence[SymbolRow], first: int = 0) -> None:
        folded, codes = self._folded, KIND_CODES  # (lookups inline: a row per definition)
        conn.executemany(
            "INSERT INTO symbols (file_id, seq, name, folded_apart, kind_code, kind_name, line, "
            "end_line) VALUES (?,?,?,?,?,?,?,?)",
            ((file_id, seq, name, folded[name] if name in folded else self._folded_of(name),
              codes.get(kind), None if kind in codes else kind, line, end_line)
             for seq, (name, kind, _, line, end_line) in enumerate(symbols, first)))

    def put_definition_lines(self, conn: sqlite3.Connection, file_id: int,
                             definitions: Sequence[SymbolRow]) -> None:
        """Store the definitions the first phase read from a file's definition lines
        (:mod:`~sari_core.engine.index.fast_definitions`), just after :meth:`put_file`
        marked its symbols pending: they answer until :meth:`put_symbols` replaces them."""
        self._insert_symbols(conn, file_id, definitions)

    def put_chunks_deferring_parse(self, conn: sqlite3.Connection, file_id: int,
                                   chunks: list[word_index.Chunk]) -> None:
        """Store a pending file's word chunks, cut along the definitions its first phase
        stored, and mark its parse deferred: those definitions answer until a query
        that needs the file's references parses it (:meth:`put_symbols`)."""
        if not conn.execute("SELECT 1 FROM contents WHERE id = ?", (file_id,)).fetchone():
            return  # no longer a text: its chunks would be out of step with nothing
        word_index.remove_file(conn, file_id)
        conn.execute("UPDATE files SET symbols_pending = ? WHERE id = ? AND symbols_pending = ?",
                     (PARSE_DEFERRED, file_id, PARSE_PENDING))
        word_index.put_file(conn, file_id, "", (), chunks)
        self._deferred_any = None

    def put_deferred_symbols(self, conn: sqlite3.Connection, file_id: int,
                             symbols: references.Split) -> None:
        """Store the symbols of a file whose parse was deferred, in place of its definition
        lines, keeping its word chunks: they stay cut along those lines (a search by words
        answers as before the parse, and :func:`word_index.remove_file` cuts them again
        from the definition lines to take them out)."""
        self._replace_parse(conn, file_id, symbols)
        conn.execute("UPDATE files SET symbols_pending = ? WHERE id = ? AND symbols_pending = ?",
                     (PARSED_CHUNKS_AS_CUT, file_id, PARSE_DEFERRED))
        self._deferred_any = None

    def pending_files(self) -> list[tuple[int, str | None, str]]:
        """``(id, language, hash)`` of the files whose symbols and word chunks the second
        phase has still to store, in id order."""
        return [(int(r[0]), r[1], str(r[2])) for r in self.reader.execute(
            "SELECT id, language, hash FROM files WHERE symbols_pending "
            "AND symbols_pending = ? ORDER BY id", (PARSE_PENDING,))]

    def symbols_pending_any(self) -> bool:
        """Whether any file still waits for its parse (its definitions are its definition
        lines' meanwhile)."""
        return self.reader.execute(
            "SELECT 1 FROM files WHERE symbols_pending AND symbols_pending = ? LIMIT 1",
            (PARSE_PENDING,)).fetchone() is not None

    def pending_symbols(self) -> int:
        """How many files still wait for their symbols (0 once a build completed)."""
        return int(self.reader.execute(
            "SELECT count(*) FROM files WHERE symbols_pending AND symbols_pending = ?",
            (PARSE_PENDING,)).fetchone()[0])

    def deferred_parses(self, file_ids: Iterable[int] | None = None
                        ) -> list[tuple[int, str | None, str]]:
        """``(id, language, hash)`` of the files whose parse is deferred (of ``file_ids``,
        else all), in id order."""
        if file_ids is None:
            return [(int(r[0]), r[1], str(r[2])) for r in self.reader.execute(
                "SELECT id, language, hash FROM files WHERE symbols_pending "
                "AND symbols_pending = ? ORDER BY id", (PARSE_DEFERRED,))]
        found: list[tuple[int, str | None, str]] = []
        for part in chunks(sorted(set(file_ids))):
            found += [(int(r[0]), r[1], str(r[2])) for r in self.reader.execute(
                "SELECT id, language, hash FROM files WHERE symbols_pending = ? "
                f"AND id IN ({','.join('?' * len(part))})", (PARSE_DEFERRED, *part))]
        return sorted(found)

    def deferred_any(self) -> bool:
        """Whether any file's parse is deferred (a yes is remembered until a parse is stored
        here; a no is asked again, as another process may build the index)."""
        if not self._deferred_any:
            self._deferred_any = self.reader.execute(
                "SELECT 1 FROM files WHERE symbols_pending AND symbols_pending = ? LIMIT 1",
                (PARSE_DEFERRED,)).fetchone() is not None
        return self._deferred_any

    # --- queries --------------------------------------------------------------------

    def match(self, query: str) -> list[tuple[int, int, str, bool]]:
        """(id, root, path, ascii) of the files a trigram query selects (a superset of those
        holding the literal it was made from: the caller checks them)."""
        rows = self.reader.execute(
            "SELECT f.id, f.root, f.path, f.ascii FROM fts JOIN files f ON f.id = fts.rowid "
            "WHERE fts MATCH ?", (query,)).fetchall()
        return [(int(r[0]), int(r[1]), str(r[2]), bool(r[3])) for r in rows]

    def match_ids(self, query: str) -> list[int]:
        """The ids of the files a trigram query selects, in id order (no file row read)."""
        return [int(row[0]) for row in self.reader.execute(
            "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid", (query,))]

    def count_match(self, query: str) -> int:
        """How many files an FTS query selects (no file rows read)."""
        return int(self.reader.execute("SELECT count(*) FROM fts WHERE fts MATCH ?",
                                       (query,)).fetchone()[0])

    def symbols(self, where: str, params: Sequence[object], limit: int | None = None
                ) -> list[SymbolHit]:
        sql = ("SELECT s.file_id, f.root, f.path, s.name, s.kind, s.is_def, s.line, s.end_line, "
               f"s.folded FROM symbols s JOIN files f ON f.id = s.file_id WHERE {where} "
               "ORDER BY f.root, f.path, s.line")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [SymbolHit(int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5]),
                          int(r[6]), int(r[7]), str(r[8]))
                for r in self.reader.execute(sql, tuple(params))]

    def definitions_named(self, names: Sequence[str], limit: int
                          ) -> list[tuple[int, str, int, int]]:
        """(file id, name, line, end line) of definitions of any of ``names`` (any case)."""
        marks = ",".join("?" * len(names))
        folded = sorted({folded_name(name) for name in names})
        return self.reader.execute(
            "SELECT file_id, name, line, end_line FROM symbols "
            f"WHERE folded IN ({','.join('?' * len(folded))}) AND is_def = 1 "
            f"AND name COLLATE NOCASE IN ({marks}) LIMIT {int(limit)}",
            (*folded, *names)).fetchall()

    # --- references -------------------------------------------------------------------

    def references(self, names: Sequence[str], kinds: Sequence[str] | None = None,
                   file_ids: Iterable[int] | None = None) -> list[ReferenceHit]:
        """Every stored reference to one of ``names`` (of one of ``kinds``; in one of
        ``file_ids``), by root, path and line.

        The files read are those holding a name's trigrams (a name too short for them:
        every file with references), and of each only the name's entries are decoded.
        """
        ids = sorted(set(file_ids)) if file_ids is not None else None
        self.parse_deferred_for(names, ids)
        wanted = frozenset(kinds) if kinds is not None else None
        found: list[tuple[int, str, str, int]] = []  # file id, name, kind, line
        for name in dict.fromkeys(names):
            if ids is None and not self._ever_used(name):
                continue  # no file to read (a short name would read every file's)
            for file_id, data in self._reference_values(name, ids):
                found += [(file_id, name, kind, line)
                          for kind, line in references.lines(data, name, wanted)]
        places: dict[int, tuple[int, str]] = {}
        for part in chunks(sorted({entry[0] for entry in found})):
            places.update((int(row[0]), (int(row[1]), str(row[2]))) for row in self.reader.execute(
                f"SELECT id, root, path FROM files WHERE id IN ({','.join('?' * len(part))})",
                tuple(part)))
        hits = [ReferenceHit(file_id, *places[file_id], name, kind, line)
                for file_id, name, kind, line in found if file_id in places]
        if len(names) > 1:  # one line naming two of them: in the order of their folded names
            hits.sort(key=lambda hit: (hit.root, hit.path, hit.line, folded_name(hit.name)))
        else:
            hits.sort(key=lambda hit: (hit.root, hit.path, hit.line))
        return hits

    def _reference_values(self, name: str, ids: list[int] | None
                          ) -> Iterator[tuple[int, bytes]]:
        """``(file id, packed references)`` of the files that may use ``name``."""
        if ids is not None:
            for part in chunks(ids):
                yield from self.reader.execute(
                    "SELECT file_id, data FROM file_references "
                    f"WHERE file_id IN ({','.join('?' * len(part))})", tuple(part))
        elif selects(name) and "\ufffd" not in name:  # (a name read from invalid UTF-8 is
            yield from self.reader.execute(              # not spelled so in the text)
                "SELECT r.file_id, r.data FROM fts JOIN file_references r "
                "ON r.file_id = fts.rowid WHERE fts MATCH ?", (phrase(name),))
        else:
            yield from self.reader.execute("SELECT file_id, data FROM file_references")

    def parse_deferred_for(self, names: Sequence[str], file_ids: Sequence[int] | None = None
                           ) -> None:
        """Parse the files whose parse was deferred and that may use one of ``names`` (of
        ``file_ids`` only, when given), so that their symbols answer for them (a build
        parsing on demand)."""
        if self.parse_for_references is not None and self.deferred_any():
            self.parse_for_references(names, file_ids)

    def referenced(self, name: str) -> bool:
        """Whether a stored reference uses ``name``."""
        self.parse_deferred_for((name,))
        return self._ever_used(name) and any(
            references.lines(data, name) for _, data in self._reference_values(name, None))

    def _ever_used(self, name: str) -> bool:
        """Whether ``reference_names`` holds ``name`` (every name a stored reference uses
        is there, and some no file uses any more)."""
        return self.reader.execute(
            "SELECT 1 FROM reference_names WHERE folded = ? AND name = ?",
            (folded_name(name), name)).fetchone() is not None

    def used_names(self, like: str | None = None, folded_from: str = "",
                   folded_to: str = "") -> list[str]:
        """Names stored references used (a name no file uses any more may be among them:
        :meth:`referenced` tells), matching the SQL LIKE pattern ``like`` (ESCAPE '\\'), else
        whose folded form is in ``[folded_from, folded_to)``."""
        if like is not None:
            rows = self.reader.execute(
                "SELECT name FROM reference_names WHERE name LIKE ? ESCAPE '\\'", (like,))
        else:
            rows = self.reader.execute(
                "SELECT name FROM reference_names WHERE folded >= ? AND folded < ?",
                (folded_from, folded_to))
        return [str(row[0]) for row in rows]

    def names_referenced_by_file(self) -> Iterator[tuple[int, list[str]]]:
        """Each file with references, and the names they use."""
        for file_id, data in self.reader.execute("SELECT file_id, data FROM file_references"):
            yield int(file_id), references.names(data)

    def all_references(self) -> Iterator[tuple[int, str, str, int]]:
        """``(file id, name, kind, line)`` of every stored reference."""
        for file_id, data in self.reader.execute("SELECT file_id, data FROM file_references"):
            for name, kind, line in references.entries(data):
                yield int(file_id), name, kind, line
