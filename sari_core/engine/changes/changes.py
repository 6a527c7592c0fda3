"""Noticing files changed on disk outside Sari: exact, and cheap when nothing changed.

The watcher is ``watchfiles`` (the Rust ``notify`` crate: inotify on Linux, FSEvents
on macOS, ReadDirectoryChangesW on Windows). Its events arrive on a background
thread, a little after the change: so a drain first changes a marker file in a
private folder watched by the same watcher and waits until the marker's own event
has arrived. Backends that deliver one ordered stream (inotify, FSEvents) deliver
every earlier change before the marker, so a call sees every change made before
it. Where the order across folders is not guaranteed (Windows), the paths the call
is about to touch are re-checked as well (``drain(touching=...)``).

When watching is impossible (no backend, watch limit reached), the fallback is a
stat check, at most once per ``SARI_SWEEP_INTERVAL`` seconds (default 1): the
size and mtime of every indexed file and the mtime of every folder, which is far
cheaper than walking the tree with its ignore rules; the full walk (the indexer's
incremental refresh) runs at most once a minute. ``SARI_SWEEP_INTERVAL=0`` walks
on every call.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from sari_core.engine.files.ignore import IgnoreRules
from sari_core.engine.files.paths import PathGuard
from sari_core.engine.index.store import IndexStore

log = logging.getLogger(__name__)

Key = tuple[int, str]

SWEEP_INTERVAL_ENV = "SARI_SWEEP_INTERVAL"
DEFAULT_SWEEP_INTERVAL = 1.0
FULL_WALK_SECONDS = 60.0  # without a watcher, the whole tree is walked at most this often
MARKER_WAIT_MS = 2000  # a marker slower than this: sweep once rather than wait longer
STARTUP_POKE_SECONDS = 0.005  # while the watcher starts, a file beside the marker changes this often
# Backends whose events for all watched folders arrive in one ordered stream.
ORDERED_PLATFORMS = ("linux", "darwin")


class ChangeSource(Protocol):
    """What changed since the last drain: paths to re-check, or "sweep everything"."""

    @property
    def exact(self) -> bool:
        """Whether a drain alone sees every earlier change (no need to pass ``touching``)."""
        ...

    def drain(self, touching: Iterable[Key] = ()) -> tuple[set[Key], bool]: ...

    def prime(self) -> None:
        """A full walk of the tree is about to start (a stat source remembers the folders)."""
        ...

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
    """The fallback when nothing watches: cheap checks, and a full walk only now and then.

    At most once per ``interval`` seconds a drain compares every indexed file's size and
    mtime, and every folder's mtime, with what they were (a ``stat`` each: tens of
    milliseconds for ten thousand files, where a walk that applies the ignore rules takes
    a second); a changed folder is listed to find files added or removed. The full walk
    (what the stat check cannot see, such as a changed ``.git/info/exclude``) runs at
    most once per ``full_interval`` seconds. ``interval`` 0 walks on every call (exact).
    Between checks only the paths a call is about to touch are re-checked.
    """

    def __init__(self, interval: float | None = None, *, guard: PathGuard | None = None,
                 rules: Sequence[IgnoreRules] = (), store: IndexStore | None = None,
                 full_interval: float = FULL_WALK_SECONDS) -> None:
        self.interval = sweep_interval() if interval is None else interval
        self.full_interval = full_interval
        self._guard = guard
        self._rules = list(rules)
        self._store = store
        self._last = float("-inf")
        self._last_full = float("-inf")
        self._folders: dict[Key, int] = {}  # folder -> its mtime when last listed

    @property
    def exact(self) -> bool:
        return self.interval <= 0

    def prime(self) -> None:
        """A full walk is about to run: remember every folder's mtime from before it (unless
        no later sweep will compare with them: exact, or never sweeping again)."""
        if self._guard is None or self._store is None or self.exact:
            return
        if self.interval == math.inf:  # the walk is the last: nothing to remember
            self._last = self._last_full = time.monotonic()
            return
        folders: dict[Key, int] = {}
        for root_index, rules in enumerate(self._rules):
            root = str(self._guard.roots[root_index])
            for folder in rules.walk_dirs():
                with contextlib.suppress(OSError):
                    folders[(root_index, folder)] = os.stat(
                        os.path.join(root, folder) if folder else root).st_mtime_ns
        self._folders = folders
        self._last = self._last_full = time.monotonic()

    def drain(self, touching: Iterable[Key] = ()) -> tuple[set[Key], bool]:
        now = time.monotonic()
        if now - self._last < self.interval:
            return set(touching), False
        self._last = now
        if not self._folders or now - self._last_full >= self.full_interval:
            self._last_full = now
            self.prime()
            return set(), True
        changed, new_folders = self._stat_check()
        if new_folders:  # folders below a new one are unknown: walk once, next time
            self._last_full = float("-inf")
        return changed | set(touching), False

    def _stat_check(self) -> tuple[set[Key], bool]:
        """Files whose stat changed, and entries added to or gone from changed folders."""
        assert self._guard is not None and self._store is not None
        roots = [str(root) for root in self._guard.roots]
        changed: set[Key] = set()
        children: dict[Key, set[str]] = {}
        for root_index, path, size, mtime_ns in self._store.file_stats():
            folder, _, name = path.rpartition("/")
            children.setdefault((root_index, folder), set()).add(name)
            try:
                info = os.stat(os.path.join(roots[root_index], path))
            except OSError:
                changed.add((root_index, path))
                continue
            if info.st_size != size or info.st_mtime_ns != mtime_ns:
                changed.add((root_index, path))
        new_folders = False
        for (root_index, folder), mtime_ns in list(self._folders.items()):
            absolute = os.path.join(roots[root_index], folder) if folder else roots[root_index]
            try:
                now_ns = os.stat(absolute).st_mtime_ns
            except OSError:
                changed.add((root_index, folder))  # a folder that is gone
                del self._folders[(root_index, folder)]
                continue
            if now_ns == mtime_ns:
                continue
            self._folders[(root_index, folder)] = now_ns
            known = children.get((root_index, folder), set())
            try:
                with os.scandir(absolute) as entries:
                    listed = {entry.name: entry.is_dir(follow_symlinks=False)
                              for entry in entries}
            except OSError:
                continue
            prefix = f"{folder}/" if folder else ""
            for name, is_dir in listed.items():
                if is_dir and (root_index, prefix + name) not in self._folders:
                    if not self._rules[root_index].is_ignored(prefix + name, True):
                        changed.add((root_index, prefix + name))
                        new_folders = True
                elif not is_dir and name not in known:
                    changed.add((root_index, prefix + name))
            changed.update((root_index, prefix + name) for name in known - listed.keys())
        return changed, new_folders

    def close(self) -> None:
        pass


def quiet_library_log() -> None:
    """watchfiles logs every batch at info; each drain's marker makes one, so its log is
    kept to warnings unless someone set its level."""
    library_log = logging.getLogger("watchfiles")
    if library_log.level == logging.NOTSET:
        library_log.setLevel(logging.WARNING)


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
            import watchfiles
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
        # A batch ends once a check finds no new event (step 0), or empty after the wait. (A
        # short wait loses events: the library clears what came in as it times out.)
        self._batches: Iterator[set[tuple[watchfiles.Change, str]]] = watchfiles.watch(
            *self._roots, self._marker_dir, debounce=MARKER_WAIT_MS, step=0,
            rust_timeout=MARKER_WAIT_MS, yield_on_timeout=True, force_polling=False,
            recursive=True, ignore_permission_denied=True, debug=False)
        quiet_library_log()
        self._early: set[tuple[object, str]] = set()  # events of the first batch
        try:  # the watcher starts on its first batch: taking it shows watching works
            self._early = self._first_batch()
        except (OSError, RuntimeError) as exc:  # watch limit, unsupported file system
            shutil.rmtree(self._marker_dir, ignore_errors=True)
            raise WatchUnavailable(f"watching failed: {exc}") from exc

    def _first_batch(self) -> set[tuple[object, str]]:
        """Start the watcher: its first batch, which ends as soon as an event arrives; a file
        beside the marker (never the marker) changes until one does."""
        started = threading.Event()
        poke_file = os.path.join(self._marker_dir, "start")

        def poke() -> None:
            size = 0
            while not started.wait(STARTUP_POKE_SECONDS):
                size += 1
                os.truncate(poke_file, size % 2)

        with open(poke_file, "wb"):
            pass
        poker = threading.Thread(target=poke, name="sari-watch-start", daemon=True)
        poker.start()
        try:
            return set(next(self._batches, set()))
        finally:
            started.set()
            poker.join()

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

    def _until_marker(self) -> set[tuple[object, str]] | None:
        """Every event up to this drain's marker (None if it did not come in time)."""
        events: set[tuple[object, str]] = {
            event for event in self._early if not event[1].startswith(self._marker_dir)}
        self._early = set()
        deadline = time.monotonic() + MARKER_WAIT_MS / 1000
        while True:
            batch = next(self._batches, None)
            if batch is None:  # the watcher stopped
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

    def prime(self) -> None:
        pass  # events, not snapshots

    def close(self) -> None:
        with self._lock, contextlib.suppress(RuntimeError, ValueError):
            close_batches = getattr(self._batches, "close", None)
            if close_batches is not None:  # ends the generator: the watcher stops
                close_batches()
        shutil.rmtree(self._marker_dir, ignore_errors=True)


class WatchAfterFirstBuild:
    """A watched tree's change source until its first build is done: there is nothing to
    drain (no index to keep current yet; the build's walk is the sweep).

    Until then the tree is answered from scans, and rg opens every file: a watcher's thread
    spent tens of ms of CPU on those opens beside rg (``notify`` reports an open as an
    access event), on the two cores rg scans with. The workspace starts the watcher once the
    first build is done, then walks once more for what changed during the build.
    """

    exact = True

    def drain(self, touching: Iterable[Key] = ()) -> tuple[set[Key], bool]:
        return set(), False

    def prime(self) -> None:
        pass

    def close(self) -> None:
        pass


def change_source(guard: PathGuard, rules: Sequence[IgnoreRules], watch: bool,
                  store: IndexStore | None = None, *, first_build: bool = False,
                  one_call: bool = False) -> ChangeSource:
    """The file-system watcher when asked and available (after the first build, when one is
    to come), else the rate-limited stat sweep (``one_call``: never sweeping after the walk
    that precedes a process's only call)."""
    if watch and first_build:
        return WatchAfterFirstBuild()
    if watch:
        try:
            return NotifyWatcher(guard, rules)
        except OSError as exc:
            # Linux and macOS always have a backend: losing it there is worth a warning.
            level = logging.WARNING if sys.platform.startswith(ORDERED_PLATFORMS) else logging.INFO
            log.log(level, "sari: no file watcher, so changes are found by rate-limited stat "
                    "sweeps (%s)", exc)
    return StatSweep(math.inf if one_call else None, guard=guard, rules=rules, store=store)
