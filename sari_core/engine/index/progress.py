"""A one-line progress bar on a terminal; silence everywhere else (pipes, CI, MCP stdio)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def wants_progress(progress: bool | None, stream: TextIO | None = None) -> bool:
    """``None`` means: only when stderr is a terminal."""
    if progress is not None:
        return progress
    stream = stream if stream is not None else sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """``sari: indexing [#####-----] 1,234/7,198 files`` redrawn at most 10 times a second."""

    WIDTH = 30

    def __init__(self, total: int, enabled: bool, label: str = "indexing",
                 stream: TextIO | None = None) -> None:
        self.total = max(total, 0)
        self.done = 0
        self.enabled = enabled and total > 0
        self.label = label
        self.stream = stream or sys.stderr
        self._last = 0.0

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= 0.1 or self.done >= self.total:
            self._last = now
            self._draw()

    def _draw(self) -> None:
        fraction = min(self.done / self.total, 1.0) if self.total else 1.0
        filled = int(fraction * self.WIDTH)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\rsari: {self.label} [{bar}] {self.done:,}/{self.total:,} files")
        self.stream.flush()

    def close(self, summary: str = "") -> None:
        if not self.enabled:
            return
        self._draw()
        self.stream.write(f"\n{summary}\n" if summary else "\n")
        self.stream.flush()
