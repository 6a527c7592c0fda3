"""How large a path or a query may be, and the one normalisation of a path argument.

Every check here runs at the boundary, before any policy or the engine sees the call, in
time linear in the argument: a policy that compares paths (a glob per path component, a
prefix per root) may then take time that grows faster than the path without a client
being able to make it large. The limits are the filesystem's own where there is one: no
longer path and no longer component names a file on Linux, so refusing them refuses
nothing that exists.
"""

from __future__ import annotations

import posixpath

from sari_core.errors import ErrorCode, SariError

MAX_PATH_BYTES = 4096  # PATH_MAX on Linux
MAX_COMPONENT_BYTES = 255  # NAME_MAX on Linux, macOS and NTFS
MAX_QUERY_CHARS = 4096  # a search query or a glob (a pasted line is far shorter)
MAX_SYMBOL_CHARS = 1024  # a symbol name, possibly dotted


def bounded_path(key: str, value: str) -> str:
    """``value`` normalised once (``a//b/./c`` -> ``a/b/c``), or INVALID_ARGS when it is too
    long or holds a NUL, or PATH_OUTSIDE_WORKSPACE when, relative, it climbs out with ``..``.

    An absolute path stays absolute (whether it lies in the workspace is the engine's
    question); ``.`` stays ``.`` so "the workspace root" keeps its spelling.
    """
    if "\x00" in value:
        raise SariError(ErrorCode.INVALID_ARGS, f"{key} contains a NUL byte and was refused.",
                        "Send the path as plain text, without control characters.")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        raise SariError(ErrorCode.INVALID_ARGS,
                        f"{key} is {size:,} bytes long; no path over {MAX_PATH_BYTES:,} bytes "
                        "names a file.", "Give the file's path relative to the workspace root.",
                        details={"max_bytes": MAX_PATH_BYTES})
    if not value.strip():
        return value  # the tool's own check names what is missing
    normal = posixpath.normpath(value)
    if normal == ".." or normal.startswith("../"):
        raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                        f"{_shown(value)} climbs out of the workspace with '..' and was refused.",
                        "Use a path inside the workspace, relative to its root.")
    longest = max(len(part.encode("utf-8", "surrogatepass")) for part in normal.split("/"))
    if longest > MAX_COMPONENT_BYTES:
        raise SariError(ErrorCode.INVALID_ARGS,
                        f"{key} has a name of {longest:,} bytes; no file or folder name is "
                        f"longer than {MAX_COMPONENT_BYTES}.",
                        "Check the path: each name between slashes is at most 255 bytes.")
    return normal


def bounded_text(key: str, value: str, limit: int, hint: str) -> str:
    """``value`` unchanged, or INVALID_ARGS naming ``key`` when it is over ``limit`` characters."""
    if len(value) > limit:
        raise SariError(ErrorCode.INVALID_ARGS,
                        f"{key} is {len(value):,} characters long, over the {limit:,} allowed.",
                        hint, details={"max_chars": limit})
    return value


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 80 else repr(value[:60]) + f"... ({len(value):,} chars)"
