"""The plain BM25 arm of ``bench/search_quality.py``: textbook BM25 over Sari's own units.

The units are the word index's chunks, computed from the same stored text and definitions
the index used (``sari_core.engine.index.word_chunks.chunks``): one per definition (its own
lines, a class's methods in their own units) and windows of lines outside definitions. A
unit's text is its name's words and its body's words, nothing else (no path column, no
column weights). The tokenisation is the index's: code words (``camelCase`` split at case
changes), then SQLite FTS5's ``porter unicode61`` (lower case, Porter's stemmer). Ranking
is FTS5's ``bm25()`` (Okapi BM25, k1 = 1.2, b = 0.75) over one column. The query is the
words the ripgrep arms search for (common English words left out), joined by OR: no
spellings, no glued names, no initials, no definition heads, no file kinds.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from search_quality_rg import query_words

Hit = tuple[str, int | None, str | None]  # path, line, enclosing definition
LIMIT = 200


class PlainBM25:
    """Every chunk of a built workspace in an in-memory FTS5 table, ranked by ``bm25()``."""

    def __init__(self, workspace: Any) -> None:
        from sari_core.engine.index.word_chunks import chunks

        store = workspace.store
        conn = store.reader
        paths = dict(conn.execute("SELECT id, path FROM files"))
        definitions: dict[int, list[tuple[str, str, int, int]]] = {}
        for file_id, name, kind, line, end in conn.execute(
                "SELECT file_id, name, kind, line, end_line FROM symbols WHERE is_def = 1 "
                "ORDER BY file_id, seq"):
            definitions.setdefault(file_id, []).append((name, kind, line, end))
        self.units: list[Hit] = []
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE units USING fts5(words, "
                        "tokenize = 'porter unicode61')")
        rows = []
        for file_id, text in store.all_texts():
            path = paths.get(file_id)
            if path is None:
                continue
            for line, _end, scope, _kind, name, body in chunks(text, definitions.get(file_id, [])):
                self.units.append((str(path), line, scope or None))
                rows.append((len(self.units), f"{name} {body}"))
        self.db.executemany("INSERT INTO units (rowid, words) VALUES (?, ?)", rows)

    def hits(self, query: str) -> list[Hit]:
        """The units ranked by BM25 for the query's words, best first."""
        words = query_words(query)
        if not words:
            return []
        expression = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
        found = self.db.execute("SELECT rowid FROM units WHERE units MATCH ? "
                                "ORDER BY bm25(units) LIMIT ?", (expression, LIMIT))
        return [self.units[rowid - 1] for (rowid,) in found]

    def close(self) -> None:
        self.db.close()
