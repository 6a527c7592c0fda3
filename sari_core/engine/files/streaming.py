"""A range of lines of a file too large to load whole, read by streaming it.

Above the whole-read limit a file is never held in memory: its bytes pass once
through a buffer, the lines of the asked range are kept (each cut at
``LINE_KEEP_BYTES``), and the rest is only counted and hashed, so the answer
still carries ``total_lines`` and ``content_hash``. Lines are split on ``\\n`` as
everywhere else. The range is decoded as UTF-8 (a BOM is honoured) or, when that
fails, as Latin-1; a UTF-16 file this large is refused.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

from sari_core.engine.files.textfile import (
    BINARY_SNIFF_BYTES,
    binary_refusal,
    is_binary,
    split_lines,
)
from sari_core.errors import ErrorCode, SariError

CHUNK_BYTES = 1 << 20
LINE_KEEP_BYTES = 1 << 20  # a longer line is kept cut (the character cap cuts it anyway)


@dataclass(frozen=True)
class StreamedRange:
    """Lines ``first..`` (at most up to the line asked for) of a streamed file."""

    lines: list[str]
    first: int
    total_lines: int
    encoding: str
    hash: str


def _line(handle: BinaryIO, digest: hashlib._Hash) -> bytes | None:
    """The next line (its first ``LINE_KEEP_BYTES``), hashed whole; None at the end."""
    kept = handle.readline(LINE_KEEP_BYTES)
    if not kept:
        return None
    digest.update(kept)
    rest = kept
    while not rest.endswith(b"\n") and len(rest) == LINE_KEEP_BYTES:
        rest = handle.readline(CHUNK_BYTES)
        digest.update(rest)
        if len(rest) < CHUNK_BYTES and not rest.endswith(b"\n"):
            break
    return kept


def stream_range(fd: int, display: str, first: int, needed: int) -> StreamedRange:
    """Lines ``first..needed`` (1-based) of the open file ``fd`` (closed here)."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SariError(ErrorCode.NOT_A_FILE, f"{display!r} is not a regular file.",
                            "Only regular files can be read.")
        with open(fd, "rb", buffering=CHUNK_BYTES, closefd=False) as handle:
            head = handle.read(BINARY_SNIFF_BYTES)
            if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                raise SariError(ErrorCode.FILE_TOO_LARGE, f"{display!r} is a UTF-16 file too "
                                "large to read in parts.", "Search it with search instead.")
            if is_binary(head):
                raise binary_refusal(display, os.fstat(fd).st_size)
            handle.seek(0)
            return _collect(handle, first, needed)
    finally:
        os.close(fd)


def _collect(handle: BinaryIO, first: int, needed: int) -> StreamedRange:
    digest = hashlib.sha1()
    picked: list[bytes] = []
    number = 0
    while number < needed:
        line = _line(handle, digest)
        if line is None:
            break
        number += 1
        if number >= first:
            picked.append(line)
    total = number
    if number == needed:  # count (and hash) the lines after the range
        ends_open = False
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
            total += chunk.count(b"\n")
            ends_open = not chunk.endswith(b"\n")
        total += int(ends_open)
    data = b"".join(picked)
    encoding = "utf-8"
    if first == 1 and data.startswith(codecs.BOM_UTF8):
        data, encoding = data[len(codecs.BOM_UTF8):], "utf-8-sig"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text, encoding = data.decode("latin-1"), "latin-1"
    return StreamedRange(split_lines(text), first, total, encoding, digest.hexdigest())
