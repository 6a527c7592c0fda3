"""Context items that are workspace files: their names, contents and token sizes.

An item is a path relative to a workspace root with forward slashes — the form
the engine reports. A path that leaves the roots (``..``, absolute elsewhere,
symlinks out, NUL bytes) is never read: it counts as missing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from sari_core import CHARS_PER_TOKEN


class WorkspaceFiles:
    """Reads context items from the workspace roots (the first root that has the file)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [Path(os.path.realpath(root)) for root in roots]

    def item_for(self, path: str) -> str:
        """The item name of a path as a client or the engine wrote it."""
        text = path.replace("\\", "/")
        if os.path.isabs(text):
            real = os.path.realpath(text)
            for root in self.roots:
                try:
                    return Path(real).relative_to(root).as_posix()
                except ValueError:
                    continue
            return text
        while text.startswith("./"):
            text = text[2:]
        return text

    def _resolve(self, item: str) -> Path | None:
        if "\x00" in item or os.path.isabs(item):
            return None
        for root in self.roots:
            candidate = Path(os.path.realpath(root / item))
            if candidate != root and root in candidate.parents and candidate.is_file():
                return candidate
        return None

    def read(self, item: str) -> bytes | None:
        """The file's bytes, or None if it does not exist (or is not ours to read)."""
        path = self._resolve(item)
        if path is None:
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    def tokens(self, item: str) -> int:
        """Token estimate from the file's size (the kernel's 4 characters per token)."""
        path = self._resolve(item)
        if path is None:
            return 0
        try:
            size = path.stat().st_size
        except OSError:
            return 0
        return (size + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN

    def render(self, item: str) -> str:
        """The item as prompt text: the file wrapped in a header naming it."""
        data = self.read(item)
        text = data.decode("utf-8", errors="replace") if data is not None else ""
        if text and not text.endswith("\n"):
            text += "\n"
        return f'<file path="{item}">\n{text}</file>\n'
