"""Exact navigation answers kept while nothing they depend on can have changed.

A language server's answer to *who references / calls / implements X* depends on every
file it analyses, so an answer is served again only while all of these hold:

* the workspace generation is the same: no file change seen since it was computed
  (Sari's own writes, and the outside changes its watcher reports, which the kernel
  raises before every call; each moves the runner's change epoch);
* the server is the same process and was sent no text since (a validation sends the
  server a document's text, which is what it then answers from);
* every file the answer names (its definitions and its hits) has the modification time
  and size it had when the answer was computed.

Any change drops the answer, never patches it. Entries are bounded (least recently used
first out).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

MAX_ANSWERS = 256
Stamp = tuple[int, int]  # (mtime_ns, size); (-1, -1) for a file that is gone
T = TypeVar("T")


def stamps(paths: Iterable[Path]) -> dict[Path, Stamp]:
    """The current (mtime_ns, size) of each file."""
    out: dict[Path, Stamp] = {}
    for path in paths:
        try:
            status = path.stat()
            out[path] = (status.st_mtime_ns, status.st_size)
        except OSError:
            out[path] = (-1, -1)
    return out


@dataclass(frozen=True)
class _Entry(Generic[T]):
    generation: Hashable
    files: dict[Path, Stamp]
    value: T


class AnswerCache(Generic[T]):
    """Answers by question, valid for one generation and one state of their files."""

    def __init__(self, max_entries: int = MAX_ANSWERS) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, _Entry[T]] = OrderedDict()
        self._lock = threading.Lock()  # read from the caller's thread, filled on the loop
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, generation: Hashable) -> tuple[bool, T | None]:
        """(True, answer) when a valid answer is kept; (False, None) otherwise."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry.generation != generation or \
                stamps(entry.files) != entry.files:
            with self._lock:
                if entry is not None and self._entries.get(key) is entry:
                    del self._entries[key]  # stale: computed before a change
                self.misses += 1
            return False, None
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
            self.hits += 1
        return True, entry.value

    def put(self, key: Hashable, generation: Hashable, files: dict[Path, Stamp],
            value: T) -> None:
        with self._lock:
            self._entries[key] = _Entry(generation, dict(files), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
