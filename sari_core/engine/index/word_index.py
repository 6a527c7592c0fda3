"""The word index: a file's text cut into chunks of code words, for search by words.

An agent asks in words ("where are redirects followed") as often as by name. The trigram
index answers literals; this one answers words. Each text file is cut into chunks:

* a source file with definitions: one chunk per definition, holding the definition's own
  lines (a class's header, docstring and attributes, not its methods, which have their
  own chunks), and the lines outside every definition in windows of ``WINDOW`` lines;
* any other text file (docs, config, a source file without definitions): windows of
  ``WINDOW`` lines.

A chunk's words are code words: ``camelCase`` and ``HTTPAdapter`` are split at their case
changes (by :mod:`sari_core.engine.index.word_chunks`), ``snake_case`` and ``dotted.names`` by the tokenizer (``porter unicode61``:
an underscore or a dot separates words; Porter's stemmer makes ``redirects`` and
``followed`` match ``redirect`` and ``follow``). Three columns are ranked by BM25 with
their own weights (see :mod:`sari_core.engine.search.word_search`): ``name`` (the definition's
own name), ``body`` (the name of the class it is in, and its lines), ``path`` (the file's
path).

The rows live in ``word_chunks`` (where a chunk is); the FTS table ``words`` is
contentless (its words are stored nowhere else: the index stays small), so a file's chunks
are taken out by computing them again from its stored text and definitions. A file's rows
are replaced whenever its text or its definitions are.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# How a file is cut into chunks of words (the index workers compute them as they parse).
from sari_core.engine.index.word_chunks import Chunk, chunks, code_words


def _rows(conn: sqlite3.Connection, file_id: int, text: str,
          definitions: Iterable[tuple[str, str, int, int]], computed: list[Chunk] | None = None
          ) -> list[tuple[int, int, str, str, str, str, str]]:
    """``(line, end_line, scope, kind, name, body, path)`` of each chunk of the file."""
    row = conn.execute("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
    path_words = code_words(str(row[0])) if row else ""
    found = chunks(text, definitions) if computed is None else computed
    return [(*chunk, path_words) for chunk in found]


def remove_file(conn: sqlite3.Connection, file_id: int) -> None:
    """Forget a file's chunks. Call it while the file's text and symbols are still stored:
    the FTS table keeps no words, so they are computed again (as :func:`put_file` did) to
    take each chunk's postings out."""
    first = conn.execute("SELECT first_chunk FROM files WHERE id = ?", (file_id,)).fetchone()
    if first is None or first[0] is None:
        return
    conn.execute("UPDATE files SET first_chunk = NULL WHERE id = ?", (file_id,))
    from sari_core.engine.index.schema import (  # schema imports nothing of ours
        mark_damaged,
        unpack_text,
    )

    text = conn.execute("SELECT data FROM contents WHERE id = ?", (file_id,)).fetchone()
    rows = _rows(conn, file_id, unpack_text(text[0]), _cut_along(conn, file_id, text[0])) \
        if text else []
    # its chunks, and the row after them: one more of the file's would be out of step too
    stored = conn.execute(
        "SELECT id, line, end_line, scope, kind FROM word_chunks WHERE id >= ? AND id <= ? "
        "AND file_id = ? ORDER BY id", (first[0], first[0] + len(rows), file_id)).fetchall()
    if [tuple(chunk[1:]) for chunk in stored] != [row[:4] for row in rows]:
        mark_damaged(conn, f"the word index of file {file_id} is out of step with its text")
    else:
        conn.executemany("INSERT INTO words (words, rowid, name, body, path) "
                         "VALUES ('delete', ?, ?, ?, ?)",
                         ((chunk[0], *row[4:]) for chunk, row in zip(stored, rows, strict=True)))
    conn.execute("DELETE FROM word_chunks WHERE id >= ? AND id <= ? AND file_id = ?",
                 (first[0], first[0] + len(rows), file_id))


def _cut_along(conn: sqlite3.Connection, file_id: int, data: bytes
               ) -> list[tuple[str, str, int, int]]:
    """The definitions a file's chunks were cut along: its stored ones, or its definition
    lines' when its chunks were kept through a deferred parse (``symbols_pending`` 3)."""
    language, state = conn.execute("SELECT language, symbols_pending FROM files WHERE id = ?",
                                   (file_id,)).fetchone()
    from sari_core.engine.index.schema import (  # schema imports nothing of ours
        PARSED_CHUNKS_AS_CUT,
        unpack_text,
    )

    if state == PARSED_CHUNKS_AS_CUT:
        from sari_core.engine.index.fast_definitions import definitions as fast_definitions

        return [(name, kind, line, end_line) for name, kind, _, line, end_line
                in fast_definitions(language, unpack_text(data))]
    return conn.execute("SELECT name, kind, line, end_line FROM symbols "
                        "WHERE file_id = ? AND is_def = 1 ORDER BY seq", (file_id,)).fetchall()


def put_file(conn: sqlite3.Connection, file_id: int, text: str,
             definitions: Iterable[tuple[str, str, int, int]] = (),
             computed: list[Chunk] | None = None) -> None:
    """Build a file's chunks from its ``text`` and ``(name, kind, line, end_line)``
    definitions (the ones stored with it, in their order: :func:`remove_file` computes
    the same chunks from them), or take them ``computed`` already (by an index worker,
    from the same text and definitions). The file must have no chunks yet."""
    rows = _rows(conn, file_id, text, definitions, computed)
    if not rows:
        return
    first = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM word_chunks").fetchone()[0])
    from sari_core.engine.index.schema import kind_columns  # schema imports nothing of ours

    conn.executemany("INSERT INTO word_chunks (id, file_id, line, end_line, scope, kind_code, "
                     "kind_name) VALUES (?,?,?,?,?,?,?)",
                     ((first + i, file_id, line, end_line, scope, *kind_columns(kind))
                      for i, (line, end_line, scope, kind, *_) in enumerate(rows)))
    conn.executemany("INSERT INTO words (rowid, name, body, path) VALUES (?,?,?,?)",
                     ((first + i, *row[4:]) for i, row in enumerate(rows)))
    conn.execute("UPDATE files SET first_chunk = ? WHERE id = ?", (first, file_id))
