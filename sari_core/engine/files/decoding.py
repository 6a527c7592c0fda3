"""Bytes to text, the one way the index and every reader decode a file.

UTF-8 (a BOM is honoured and remembered), UTF-16 with a BOM, and Latin-1 for anything else
(every byte sequence is valid Latin-1): decoding never raises. A module of its own, with
nothing but the standard library, because index worker processes import it at start.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # "utf-8", "utf-8-sig", "utf-16", "latin-1"


def decode(data: bytes) -> Decoded:
    """Bytes -> text; never raises."""
    if data.startswith(codecs.BOM_UTF8):
        try:
            return Decoded(data[3:].decode("utf-8"), "utf-8-sig")
        except UnicodeDecodeError:
            pass
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return Decoded(data.decode("utf-16"), "utf-16")
        except UnicodeDecodeError:
            pass
    else:
        try:
            return Decoded(data.decode("utf-8"), "utf-8")
        except UnicodeDecodeError:
            pass
    return Decoded(data.decode("latin-1"), "latin-1")
