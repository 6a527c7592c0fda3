"""The file texts the index keeps, LZ4-compressed, read back through one place.

Every reader of a stored text (the literal check, regex candidates, hits' lines, the word
index's removal of a file's chunks) goes through these methods, so none of them needs to
know how a text is packed.

A stored text is one LZ4 block behind its length (4 bytes, little-endian). Most readers
need all of it; the one that shows a definition's line needs the text only up to that
line, and the literal check of a common phrase often finds it near a file's top: both
decode only the start of a block (:func:`text_prefix`) where a shared liblz4 offers it
(:mod:`~sari_core.engine.index.liblz4`).
"""

from __future__ import annotations

import ctypes
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from sari_core.engine.index.liblz4 import partial_decoder
from sari_core.engine.index.schema import unpack_text, unpack_utf8

SQL_VARIABLES = 900  # stay under SQLITE_MAX_VARIABLE_NUMBER of old builds
SIZE_BYTES = 4  # the text's length before its LZ4 block
# How far to decode first for a text's first N lines: N lines of this many bytes (code
# lines average 30-40) and a margin; a text whose lines run longer is decoded whole.
LINE_BYTES_GUESS = 64
LINE_MARGIN_BYTES = 4096


def chunks(values: Sequence[int], size: int = SQL_VARIABLES) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


def stored_size(data: bytes) -> int:
    """The length of the text a stored value holds (without decoding it)."""
    return int.from_bytes(data[:SIZE_BYTES], "little")


def text_prefix(data: bytes, length: int) -> bytes:
    """The first ``length`` bytes of the stored text ``data`` (all of it when shorter),
    decoding no further than that where liblz4 allows; else the text decoded whole."""
    size = stored_size(data)
    decode = partial_decoder()
    if length >= size or decode is None:
        return unpack_utf8(data)
    source = ctypes.c_char_p(data)  # points into ``data`` (no copy), kept alive here
    address = ctypes.cast(source, ctypes.c_void_p).value
    target = ctypes.create_string_buffer(length)
    got = decode((address or 0) + SIZE_BYTES, target, len(data) - SIZE_BYTES, length, length)
    if got < 0:  # malformed: the whole decoder says how
        return unpack_utf8(data)
    return ctypes.string_at(target, got)


def leading_lines(data: bytes, count: int) -> list[bytes]:
    """The first ``count`` lines (split at ``\\n``) of the stored text ``data``, fewer when
    it has fewer, as UTF-8 bytes; the text after them is neither split nor, where it can be
    helped, decoded."""
    guess = count * LINE_BYTES_GUESS + LINE_MARGIN_BYTES
    if guess < stored_size(data):
        parts = text_prefix(data, guess).split(b"\n", count)
        if len(parts) > count:  # ``count`` whole lines before the cut
            return parts[:count]
    return unpack_utf8(data).split(b"\n", count)[:count]


class StoredTexts:
    """The stored-text reads of :class:`~sari_core.engine.index.store.IndexStore`."""

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

    def utf8_texts(self, ids: Sequence[int], conn: sqlite3.Connection | None = None
                   ) -> Iterator[tuple[int, bytes]]:
        """Texts as their UTF-8 bytes (no decoding: the cheapest exact comparison);
        ``conn``: read through it instead of this thread's reader."""
        for file_id, data in self._stored(ids, conn):
            yield file_id, unpack_utf8(data)

    def first_lines(self, counts: Mapping[int, int]) -> dict[int, list[bytes]]:
        """file id -> its first ``counts[id]`` lines as UTF-8 bytes (see
        :func:`leading_lines`): the lines of definitions, without decoding each text whole."""
        return {file_id: leading_lines(data, counts[file_id])
                for file_id, data in self._stored(sorted(counts))}

    def _stored(self, ids: Sequence[int], conn: sqlite3.Connection | None = None
                ) -> Iterator[tuple[int, bytes]]:
        for part in self.packed_texts(ids, conn):
            yield from part

    def packed_texts(self, ids: Sequence[int], conn: sqlite3.Connection | None = None
                     ) -> Iterator[list[tuple[int, bytes]]]:
        """``(id, stored text)`` of ``ids``, a few hundred at a time, still compressed
        (:func:`~sari_core.engine.index.schema.unpack_utf8` gives the bytes): a loop over
        thousands of candidates pays for one call per batch, not per file."""
        for part in chunks(list(ids)):
            marks = ",".join("?" * len(part))
            yield (conn or self.reader).execute(
                f"SELECT id, data FROM contents WHERE id IN ({marks})", tuple(part)).fetchall()

    def all_texts(self) -> Iterator[tuple[int, str]]:
        for file_id, data in self.reader.execute("SELECT id, data FROM contents"):
            yield file_id, unpack_text(data)
