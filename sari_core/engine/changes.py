"""Noticing files changed on disk outside Sari: exact, and cheap when nothing changed.

On Linux an inotify instance watches every non-ignored folder of the workspace.
The kernel queues an event before the writing system call returns, so draining
the queue (a non-blocking read, microseconds when it is empty) at the start of
each call sees every change made before that call: no debounce, no race.
Elsewhere, or when inotify is unavailable (watch limit reached), the fallback is
a stat sweep: the indexer's incremental refresh, correct but linear in the
number of files. A queue overflow also falls back to one sweep.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import struct
import sys
from collections.abc import Sequence
from typing import Protocol

from sari_core.engine.ignore import IgnoreRules
from sari_core.engine.paths import PathGuard

log = logging.getLogger(__name__)

Key = tuple[int, str]

IN_MODIFY = 0x00000002
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = 0o2000000

WATCH_MASK = (IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
              | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)
EVENT_HEADER = struct.Struct("iIII")


class ChangeSource(Protocol):
    """What changed since the last drain: paths to re-check, or "sweep everything"."""

    def drain(self) -> tuple[set[Key], bool]: ...

    def close(self) -> None: ...


class StatSweep:
    """The portable fallback: every drain asks for a full (incremental) sweep."""

    def drain(self) -> tuple[set[Key], bool]:
        return set(), True

    def close(self) -> None:
        pass


class WatchUnavailable(OSError):
    """inotify cannot be used here (not Linux, no libc symbol, watch limit)."""


def _libc() -> ctypes.CDLL:
    if not sys.platform.startswith("linux"):
        raise WatchUnavailable("inotify is Linux-only")
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if not hasattr(libc, "inotify_init1"):
        raise WatchUnavailable("libc has no inotify")
    libc.inotify_init1.argtypes = [ctypes.c_int]
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    return libc


class InotifyWatcher:
    """Watches every non-ignored folder of every root with one inotify instance."""

    def __init__(self, guard: PathGuard, rules: Sequence[IgnoreRules]) -> None:
        self._libc = _libc()
        self._guard = guard
        self._rules = list(rules)
        fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise WatchUnavailable(ctypes.get_errno(), "inotify_init1 failed")
        self._fd = fd
        self._dirs: dict[int, Key] = {}
        self._wds: dict[Key, int] = {}
        self._overflow = False
        try:
            for root_index, rules_of_root in enumerate(self._rules):
                for dir_rel in rules_of_root.walk_dirs():
                    self._watch((root_index, dir_rel))
        except BaseException:
            self.close()
            raise

    def _watch(self, key: Key) -> None:
        root_index, dir_rel = key
        root = self._guard.roots[root_index]
        path = os.path.join(root, dir_rel) if dir_rel else str(root)
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), WATCH_MASK)
        if wd < 0:
            code = ctypes.get_errno()
            if code == errno.ENOSPC:
                raise WatchUnavailable(code, "inotify watch limit reached "
                                       "(fs.inotify.max_user_watches)")
            return  # the folder vanished or is unreadable: nothing to watch
        self._dirs[wd] = key
        self._wds[key] = wd

    def _unwatch_below(self, key: Key) -> None:
        root_index, dir_rel = key
        prefix = dir_rel + "/"
        for other in [k for k in self._wds if k[0] == root_index
                      and (k[1] == dir_rel or k[1].startswith(prefix))]:
            wd = self._wds.pop(other)
            self._dirs.pop(wd, None)
            self._libc.inotify_rm_watch(self._fd, wd)

    def _watch_below(self, key: Key) -> None:
        root_index, dir_rel = key
        rules = self._rules[root_index]
        if rules.is_ignored(dir_rel, True):
            return
        stack = [dir_rel]
        while stack:
            current = stack.pop()
            if (root_index, current) in self._wds:
                continue
            self._watch((root_index, current))
            folder = os.path.join(self._guard.roots[root_index], current)
            try:
                with os.scandir(folder) as scan:
                    names = [entry.name for entry in scan if entry.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            for name in names:
                child = f"{current}/{name}" if current else name
                if not rules.is_ignored(child, True):
                    stack.append(child)

    def _read(self) -> bytes:
        chunks = []
        while True:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                raise
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def drain(self) -> tuple[set[Key], bool]:
        data = self._read()
        dirty: set[Key] = set()
        offset = 0
        while offset + EVENT_HEADER.size <= len(data):
            wd, mask, _cookie, length = EVENT_HEADER.unpack_from(data, offset)
            offset += EVENT_HEADER.size
            name = os.fsdecode(data[offset:offset + length].rstrip(b"\0"))
            offset += length
            if mask & IN_Q_OVERFLOW:
                self._overflow = True
                continue
            folder = self._dirs.get(wd)
            if mask & IN_IGNORED:
                if folder is not None:
                    self._dirs.pop(wd, None)
                    self._wds.pop(folder, None)
                continue
            if folder is None:
                continue
            root_index, dir_rel = folder
            if not name:  # the watched folder itself was deleted or moved away
                dirty.add(folder)
                if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                    self._unwatch_below(folder)
                continue
            rel = f"{dir_rel}/{name}" if dir_rel else name
            key = (root_index, rel)
            dirty.add(key)
            if mask & IN_ISDIR:
                if mask & (IN_CREATE | IN_MOVED_TO):
                    self._watch_below(key)
                elif mask & (IN_DELETE | IN_MOVED_FROM):
                    self._unwatch_below(key)
        overflow, self._overflow = self._overflow, False
        return dirty, overflow

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def change_source(guard: PathGuard, rules: Sequence[IgnoreRules], watch: bool) -> ChangeSource:
    """inotify when asked and available, else the stat sweep."""
    if watch:
        try:
            return InotifyWatcher(guard, rules)
        except (OSError, AttributeError) as exc:
            log.info("sari: watching with stat sweeps (%s)", exc)
    return StatSweep()
