"""A file's references, packed into one value.

A source file names other things hundreds of times (every call, every base class, every
type); a row and a name-index entry for each was a third of the index and most of the
cost of storing a parse. They are kept per file instead, in one value
(``references.data``), and found by name through the trigram index: the files that may
name a thing are those holding its trigrams, and only their values are read.

Layout (little-endian)::

    header size, name count        two uint32
    header                         kinds joined by NUL, SOH, then NUL name NUL name ... NUL
    entry count per name           one uint32 per name, in the header's order
    entries                        one uint32 per reference: line << 8 | kind index,
                                   grouped by name in the header's order, by line within

Looking a name up is a search of the header for ``NUL name NUL`` and a slice of the
entries; nothing else of the value is decoded. A reference is one line (its last line is
its first).
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from sari_core.engine.index.symbols import SymbolRow

_HEAD = struct.Struct("<II")
_NAMES_START = b"\x01"
_SEPARATOR = b"\x00"
KIND_BITS = 8
_KIND_MASK = (1 << KIND_BITS) - 1
MAX_LINE = (1 << (32 - KIND_BITS)) - 1  # 16.7M lines: far beyond any file parsed
_SWAP = sys.byteorder != "little"
if array("I").itemsize != 4:  # pragma: no cover - every platform CPython supports
    raise ImportError("the packed references need a 4-byte unsigned int")

# (definitions, packed references): what a parse of a file stores
Split = tuple[list[SymbolRow], bytes]


def _uint32(data: bytes) -> array[int]:
    values = array("I")
    values.frombytes(data)
    if _SWAP:  # pragma: no cover - big-endian machines
        values.byteswap()
    return values


def _bytes(values: array[int]) -> bytes:
    if _SWAP:  # pragma: no cover - big-endian machines
        values = array("I", values)
        values.byteswap()
    return values.tobytes()


def split(rows: Iterable[SymbolRow]) -> Split:
    """A parse's definitions as rows, and its references packed (b"" when none)."""
    definitions: list[SymbolRow] = []
    references: list[SymbolRow] = []
    for row in rows:
        (definitions if row[2] else references).append(row)
    return definitions, pack(references)


def pack(references: Sequence[SymbolRow]) -> bytes:
    """The value storing ``references`` (``(name, kind, 0, line, line)`` rows)."""
    kinds: dict[str, int] = {}
    by_name: dict[str, list[int]] = {}
    for name, kind, _, line, _ in references:
        if "\x00" in name or "\x01" in name or not 0 < line <= MAX_LINE:
            continue  # no identifier holds a control character
        index = kinds.setdefault(kind, len(kinds))
        if index > _KIND_MASK:
            continue  # pragma: no cover - a tags query names a handful of kinds
        by_name.setdefault(name, []).append(line << KIND_BITS | index)
    if not by_name:
        return b""
    counts = array("I")
    entries = array("I")
    for codes in by_name.values():
        codes.sort()
        counts.append(len(codes))
        entries.extend(codes)
    header = (_SEPARATOR.join(kind.encode("utf-8") for kind in kinds) + _NAMES_START
              + _SEPARATOR + _SEPARATOR.join(name.encode("utf-8", "surrogatepass")
                                             for name in by_name) + _SEPARATOR)
    return _HEAD.pack(len(header), len(by_name)) + header + _bytes(counts) + _bytes(entries)


def count(data: bytes) -> int:
    """How many references a value holds."""
    if not data:
        return 0
    size, names = _HEAD.unpack_from(data)
    return (len(data) - _HEAD.size - size) // 4 - names


def _header(data: bytes) -> tuple[int, int, bytes, int]:
    size, names = _HEAD.unpack_from(data)
    header = data[_HEAD.size:_HEAD.size + size]
    return size, names, header, header.index(_NAMES_START)


def names(data: bytes) -> list[str]:
    """The names a value's references use, each once."""
    if not data:
        return []
    _, _, header, start = _header(data)
    return [name.decode("utf-8", "surrogatepass")
            for name in header[start + 2:-1].split(_SEPARATOR)]


@lru_cache(maxsize=1024)
def _needle(name: str) -> bytes:
    return _SEPARATOR + name.encode("utf-8", "surrogatepass") + _SEPARATOR


def lines(data: bytes, name: str, kinds: frozenset[str] | None = None
          ) -> list[tuple[str, int]]:
    """``(kind, line)`` of each reference to ``name`` (of one of ``kinds``), by line."""
    if not data or "\x00" in name or "\x01" in name:
        return []
    size, count_of_names = _HEAD.unpack_from(data)
    end = _HEAD.size + size
    start = data.index(_NAMES_START, _HEAD.size, end)
    found = data.find(_needle(name), start, end)  # the common answer: not named here
    if found < 0:
        return []
    position = data.count(_SEPARATOR, start + 1, found + 1) - 1
    counts = _uint32(data[end:end + 4 * count_of_names])
    offset = end + 4 * (count_of_names + sum(counts[:position]))
    codes = _uint32(data[offset:offset + 4 * counts[position]])
    kind_names = data[_HEAD.size:start].decode("utf-8").split("\x00")
    out = [(kind_names[code & _KIND_MASK], code >> KIND_BITS) for code in codes]
    return out if kinds is None else [entry for entry in out if entry[0] in kinds]


def entries(data: bytes) -> Iterator[tuple[str, str, int]]:
    """Every ``(name, kind, line)`` a value holds, name by name."""
    if not data:
        return
    size, count_of_names, header, start = _header(data)
    kind_names = header[:start].decode("utf-8").split("\x00")
    counts = _uint32(data[_HEAD.size + size:_HEAD.size + size + 4 * count_of_names])
    codes = _uint32(data[_HEAD.size + size + 4 * count_of_names:])
    position = 0
    for name, many in zip(names(data), counts, strict=True):
        for code in codes[position:position + many]:
            yield name, kind_names[code & _KIND_MASK], code >> KIND_BITS
        position += many
