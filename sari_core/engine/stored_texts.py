"""The file texts the index keeps, LZ4-compressed, read back through one place.

Every reader of a stored text (the literal check, regex candidates, hits' lines, the word
index's removal of a file's chunks) goes through these methods, so none of them needs to
know how a text is packed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from sari_core.engine.schema import unpack_text, unpack_utf8

SQL_VARIABLES = 900  # stay under SQLITE_MAX_VARIABLE_NUMBER of old builds


def chunks(values: Sequence[int], size: int = SQL_VARIABLES) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


class StoredTexts:
    """The stored-text reads of :class:`~sari_core.engine.store.IndexStore`."""

    if TYPE_CHECKING:  # what the store provides: the calling thread's read connection
        @property
        def reader(self) -> sqlite3.Connection: ...

    def text_of(self, file_id: int, conn: sqlite3.Connection | None = None) -> str | None:
        row = (conn or self.reader).execute("SELECT data FROM contents WHERE id = ?",
                                            (file_id,)).fetchone()
        return unpack_text(row[0]) if row else None

    def texts(self, ids: Sequence[int]) -> Iterator[tuple[int, str]]:
        for file_id, data in self._stored(ids):
            yield file_id, unpack_text(data)

    def utf8_texts(self, ids: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        """Texts as their UTF-8 bytes (no decoding: the cheapest exact comparison)."""
        for file_id, data in self._stored(ids):
            yield file_id, unpack_utf8(data)

    def _stored(self, ids: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        for part in self.packed_texts(ids):
            yield from part

    def packed_texts(self, ids: Sequence[int]) -> Iterator[list[tuple[int, bytes]]]:
        """``(id, stored text)`` of ``ids``, a few hundred at a time, still compressed
        (:func:`~sari_core.engine.schema.unpack_utf8` gives the bytes): a loop over
        thousands of candidates pays for one call per batch, not per file."""
        for part in chunks(list(ids)):
            marks = ",".join("?" * len(part))
            yield self.reader.execute(
                f"SELECT id, data FROM contents WHERE id IN ({marks})", tuple(part)).fetchall()

    def all_texts(self) -> Iterator[tuple[int, str]]:
        for file_id, data in self.reader.execute("SELECT id, data FROM contents"):
            yield file_id, unpack_text(data)
