"""Opening files below a workspace root that no swapped folder can redirect.

A path checked to lie inside the root can still lead outside when it is used: a
folder on the way is replaced by a symlink between the check and the ``open``.
So nothing here opens a path as a whole. Every component is opened relative to
the descriptor of the folder above it, with ``O_NOFOLLOW`` (and ``O_DIRECTORY``
for folders), starting from the root's descriptor: a component that is a symlink
at that moment fails with ``ELOOP``/``ENOTDIR`` instead of being followed, so the
file reached is always one inside the root's tree. Writes go to a temporary file
created in the held folder and renamed there.

The paths given are canonical (symlinks inside the workspace already resolved by
:class:`~sari_core.engine.files.paths.PathGuard`), so a symlink met here means the tree
changed since: the caller refuses the call, it never follows the link.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | NOFOLLOW | _CLOEXEC
READ_FLAGS = os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC \
    | getattr(os, "O_BINARY", 0)
TEMP_SUFFIX = ".sari-tmp"  # Sari's temporary files end so; the indexer never lists them
# A folder made for a file the agent writes: rwxr-xr-x at most, whatever the umask.
NEW_FOLDER_MODE = 0o755


def supported() -> bool:
    """Whether this platform opens relative to folder descriptors (POSIX)."""
    return os.open in os.supports_dir_fd and bool(NOFOLLOW)


def open_root(path: str) -> int:
    """A descriptor of a workspace root (a canonical folder path)."""
    return os.open(path, DIR_FLAGS)


def open_dir(root_fd: int, parts: list[str], *, create: bool = False) -> int:
    """The descriptor of folder ``root/parts...``, each component opened no-follow below
    the one above. ``create`` makes missing folders (0777 less the umask).

    :raises OSError: ``ELOOP``/``ENOTDIR`` when a component is a symlink or not a folder.
    """
    fd = os.dup(root_fd)
    try:
        for part in parts:
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, NEW_FOLDER_MODE, dir_fd=fd)  # the umask may take more
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def split(rel: str) -> tuple[list[str], str]:
    """(folders, file name) of a relative path with forward slashes."""
    parts = rel.split("/")
    return parts[:-1], parts[-1]


def open_file(root_fd: int, rel: str, flags: int = READ_FLAGS) -> int:
    """A descriptor of file ``root/rel``, no symlink followed on the way or at the end."""
    folders, name = split(rel)
    parent = open_dir(root_fd, folders)
    try:
        return os.open(name, flags | NOFOLLOW, dir_fd=parent)
    finally:
        os.close(parent)


@contextmanager
def held_dir(root_fd: int, folders: list[str], *, create: bool = False) -> Iterator[int]:
    """:func:`open_dir` as a context: the folder descriptor is closed on exit."""
    fd = open_dir(root_fd, folders, create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def write_in(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """Replace ``name`` in the held folder atomically: a temporary file there, flushed,
    given ``mode``, renamed over ``name`` (a symlink named ``name`` is replaced, never
    followed), then the folder flushed so the rename is durable."""
    temp = f".{name[:64]}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | _CLOEXEC \
        | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o600, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    if sys.platform != "win32":
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)


def is_temp_name(name: str) -> bool:
    """Whether a file name is one of Sari's temporary files (see :func:`write_in`)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)
