"""Noticing files changed on disk outside Sari: exact, and cheap when nothing changed.

The watcher is ``watchfiles`` (the Rust ``notify`` crate: inotify on Linux, FSEvents
on macOS, ReadDirectoryChangesW on Windows). Its events arrive on a background
thread, a little after the change: so a drain first changes a marker file in a
private folder watched by the same watcher and waits until the marker's own event
has arrived. Backends that deliver one ordered stream (inotify, FSEvents) deliver
every earlier change before the marker, so a call sees every change made before
it. Where the order across folders is not guaranteed (Windows), the paths the call
is about to touch are re-checked as well (``drain(touching=...)``).

When watching is impossible (no backend, watch limit reached), the fallback is the
stat sweep: the indexer's incremental refresh, correct but linear in the number
of files, so it is rate-limited to one sweep per ``SARI_SWEEP_INTERVAL`` seconds
(default 1; 0 sweeps on every call).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Protocol

from sari_core.engine.ignore import IgnoreRules
from sari_core.engine.paths import PathGuard

log = logging.getLogger(__name__)

Key = tuple[int, str]

SWEEP_INTERVAL_ENV = "SARI_SWEEP_INTERVAL"
DEFAULT_SWEEP_INTERVAL = 1.0
MARKER_WAIT_MS = 2000  # a marker slower than this: sweep once rather than wait longer
# Backends whose events for all watched folders arrive in one ordered stream.
ORDERED_PLATFORMS = ("linux", "darwin")


class ChangeSource(Protocol):
    """What changed since the last drain: paths to re-check, or "sweep everything"."""

    @property
    def exact(self) -> bool:
        """Whether a drain alone sees every earlier change (no need to pass ``touching``)."""
        ...

    def drain(self, touching: Iterable[Key] = ()) -> tuple[set[Key], bool]: ...

    def close(self) -> None: ...


def sweep_interval() -> float:
    """Seconds between two fallback sweeps, from ``SARI_SWEEP_INTERVAL``."""
    raw = os.environ.get(SWEEP_INTERVAL_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_SWEEP_INTERVAL
    except ValueError:
        log.warning("%s=%r is not a number; using %s", SWEEP_INTERVAL_ENV, raw,
                    DEFAULT_SWEEP_INTERVAL)
        return DEFAULT_SWEEP_INTERVAL
    return max(0.0, value)


class StatSweep:
    """The fallback: a full (incremental) sweep, at most once per ``interval`` seconds.

    Between sweeps only the paths a call is about to touch are re-checked.
    """

    def __init__(self, interval: float | None = None) -> None:
        self.interval = sweep_interval() if interval is None else interval
        self._last = float("-inf")

    @property
    def exact(self) -> bool:
        return self.interval <= 0

    def drain(self, touching: Iterable[Key] = ()) -> tuple[set[Key], bool]:
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            return set(), True
        return set(touching), False

    def close(self) -> None:
        pass


class WatchUnavailable(OSError):
    """No file-system watcher can be used here (no backend, watch limit reached)."""


class NotifyWatcher:
    """Watches every root recursively with one ``watchfiles`` watcher.

    :param guard: the workspace roots.
    :param rules: per root, the ignore rules that drop events of ignored paths.
    :raises WatchUnavailable: when ``watchfiles`` cannot watch the roots.
    """

    def __init__(self, guard: PathGuard, rules: Sequence[IgnoreRules]) -> None:
        try:
            from watchfiles._rust_notify import RustNotify
        except ImportError as exc:  # a platform without a wheel
            raise WatchUnavailable(f"watchfiles is not importable: {exc}") from exc
        self._guard = guard
        self._rules = list(rules)
        self._roots = [str(root) for root in guard.roots]
        self._marker_dir = tempfile.mkdtemp(prefix="sari-watch-")
        self._marker = os.path.join(self._marker_dir, "marker")
        with open(self._marker, "wb"):
            pass
        self._marker_count = 0
        self._lock = threading.Lock()
        self.ordered = sys.platform.startswith(ORDERED_PLATFORMS)
        try:
            self._notify = RustNotify([*self._roots, self._marker_dir], False, False, 0,
                                      True, True)
        except (OSError, RuntimeError) as exc:  # watch limit, unsupported file system
            shutil.rmtree(self._marker_dir, ignore_errors=True)
            raise WatchUnavailable(f"watching failed: {exc}") from exc

    @property
    def exact(self) -> bool:
        return self.ordered

    def _key(self, path: str) -> Key | None:
        for root_index, root in enumerate(self._roots):
            if path == root:
                return (root_index, "")
            if path.startswith(root) and path[len(root)] in (os.sep, "/"):
                rel = path[len(root) + 1:].replace(os.sep, "/")
                is_dir = os.path.isdir(path)
                if self._rules[root_index].is_ignored(rel, is_dir):
                    return None
                return (root_index, rel)
        return None

    def drain(self, touching: Iterable[Key] = ()) -> tuple[set[Key], bool]:
        with self._lock:
            # Toggling the marker's size is one system call and one content-change event on
            # every backend (a full write costs an open, a write and a close: ~10x slower).
            self._marker_count += 1
            os.truncate(self._marker, self._marker_count % 2)
            events = self._until_marker()
        if events is None:  # the marker never arrived: trust nothing, sweep
            log.warning("sari: the file watcher fell behind; sweeping once")
            return set(), True
        dirty: set[Key] = set()
        for _change, path in events:
            key = self._key(path)
            if key is not None:
                dirty.add(key)
        if not self.ordered:
            dirty.update(touching)
        return dirty, False

    def _until_marker(self) -> set[tuple[int, str]] | None:
        """Every event up to this drain's marker (None if it did not come in time)."""
        events: set[tuple[int, str]] = set()
        deadline = time.monotonic() + MARKER_WAIT_MS / 1000
        while True:
            batch = self._notify.watch(MARKER_WAIT_MS, 0, MARKER_WAIT_MS, None)
            if not isinstance(batch, set):
                return None
            marked = False
            for event in batch:
                if event[1] == self._marker:
                    marked = True
                elif not event[1].startswith(self._marker_dir):
                    events.add(event)
            if marked:
                return events
            if time.monotonic() > deadline:
                return None

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._notify.close()
        shutil.rmtree(self._marker_dir, ignore_errors=True)


def change_source(guard: PathGuard, rules: Sequence[IgnoreRules], watch: bool) -> ChangeSource:
    """The file-system watcher when asked and available, else the rate-limited stat sweep."""
    if watch:
        try:
            return NotifyWatcher(guard, rules)
        except OSError as exc:
            log.info("sari: watching with rate-limited stat sweeps (%s)", exc)
    return StatSweep()
