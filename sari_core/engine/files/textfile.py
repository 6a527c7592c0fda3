"""Reading a file's bytes safely and turning them into text (or refusing: binary, too large).

Decoding never crashes: UTF-8 (a BOM is honoured and remembered), UTF-16 with a
BOM, and Latin-1 for anything else (every byte sequence is valid Latin-1). A file
with a NUL byte in its first block is binary — the same rule git and ripgrep use.
Lines are split on ``\\n`` only, so line numbers agree with git, editors and grep.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import io
import os
import stat
from dataclasses import dataclass

from sari_core.engine.files.decoding import Decoded, decode  # noqa: F401 - their home before decoding
from sari_core.engine.files.fileset import MAX_INDEX_BYTES  # noqa: F401 - its home before fileset
from sari_core.errors import ErrorCode, SariError
from sari_core.models import NextCall

BINARY_SNIFF_BYTES = 8192
MAX_READ_BYTES = 4 * 1024 * 1024  # mode='file' above this size asks for a snippet

LANGUAGES = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".md": "markdown", ".rst": "rst", ".txt": "text", ".toml": "toml", ".json": "json",
    ".yaml": "yaml", ".yml": "yaml", ".sh": "shell", ".html": "html", ".css": "css",
    ".rb": "ruby", ".kt": "kotlin", ".swift": "swift", ".cs": "csharp", ".php": "php",
    ".sql": "sql", ".xml": "xml", ".cfg": "ini", ".ini": "ini",
    ".kts": "kotlin", ".scala": "scala", ".sc": "scala", ".lua": "lua", ".bash": "shell",
}


def language_of(path: str) -> str | None:
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot > path.rfind("/") else None


def content_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def is_binary(data: bytes) -> bool:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def encode(text: str, encoding: str) -> bytes:
    """Text -> bytes in the file's own encoding (UTF-8 when the text does not fit it)."""
    if encoding == "utf-8-sig":
        return codecs.BOM_UTF8 + text.encode("utf-8")
    if encoding == "utf-16":
        return text.encode("utf-16")
    if encoding == "latin-1":
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError:
            return text.encode("utf-8")
    return text.encode("utf-8")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split on ``\\n`` only (``\\r\\n`` stays whole)."""
    # newline="\n": lines end at "\n" only and nothing is translated (faster than a split).
    return io.StringIO(text, newline="\n").readlines()


def head_lines(text: str, count: int) -> list[str]:
    """``split_lines(text)[:count]``, without splitting the lines after the first ``count``."""
    if count <= 0:
        return []
    pieces = text.split("\n", count)  # C speed; only the first `count` lines are cut apart
    if len(pieces) <= count:
        return split_lines(text)
    return split_lines(text[:len(text) - len(pieces[-1])])


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def read_bytes(abs_path: str | os.PathLike[str], display: str, *,
               max_bytes: int | None = None) -> bytes:
    """Open a canonical path without following a last-moment symlink, check it is a
    regular file, and read it (refusing FILE_TOO_LARGE above ``max_bytes``).
    The engine opens through :meth:`PathGuard.open_file` and :func:`read_fd` instead."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(abs_path, flags)
    except FileNotFoundError:
        raise SariError(ErrorCode.NOT_FOUND, f"{display!r} does not exist in the workspace.",
                        "Search for it by name (kind='path').",
                        [NextCall(tool="search", arguments={"query": display, "kind": "path"})]
                        ) from None
    except OSError as exc:
        raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE if exc.errno == errno.ELOOP
                        else ErrorCode.NOT_FOUND,
            f"{display!r} cannot be opened: {exc.strerror or exc.errno}.",
            "Check the path; symlinks are resolved before opening.") from None
    return read_fd(fd, display, max_bytes=max_bytes)


def read_fd(fd: int, display: str, *, max_bytes: int | None = None) -> bytes:
    """Read an open descriptor whole and close it: a regular file only, at most
    ``max_bytes`` (FILE_TOO_LARGE above)."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SariError(ErrorCode.NOT_A_FILE, f"{display!r} is not a regular file.",
                            "Only regular files can be read.")
        if max_bytes is not None and info.st_size > max_bytes:
            raise too_large(display, info.st_size, max_bytes)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def too_large(display: str, size: int, limit: int) -> SariError:
    return SariError(
        ErrorCode.FILE_TOO_LARGE,
        f"{display!r} is {size:,} bytes, over the {limit:,}-byte limit for a whole-file read.",
        "Read a range of it with mode='snippet' (start_line/end_line), or find the lines "
        "first with search.",
        [NextCall(tool="read", arguments={"mode": "snippet", "target": display,
                                          "start_line": 1, "end_line": 200})])


def binary_refusal(display: str, size: int) -> SariError:
    return SariError(ErrorCode.BINARY_FILE,
                     f"{display!r} is a binary file ({size:,} bytes); its bytes are not shown.",
                     "Read the source that produces it, or search for text files instead.")


@dataclass(frozen=True)
class TextFile:
    """A decoded regular file."""

    data: bytes
    text: str
    encoding: str
    hash: str


def load_text(abs_path: str | os.PathLike[str], display: str, *,
              max_bytes: int | None = None) -> TextFile:
    return text_of(read_bytes(abs_path, display, max_bytes=max_bytes), display)


def load_fd(fd: int, display: str, *, max_bytes: int | None = None) -> TextFile:
    """:func:`load_text` of an open descriptor (closed here)."""
    return text_of(read_fd(fd, display, max_bytes=max_bytes), display)


def text_of(data: bytes, display: str) -> TextFile:
    """Decoded file bytes, or BINARY_FILE."""
    if is_binary(data):
        raise binary_refusal(display, len(data))
    decoded = decode(data)
    return TextFile(data, decoded.text, decoded.encoding, content_hash(data))
