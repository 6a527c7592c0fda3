"""An engine over a few files written for a test, indexed before the test asks anything."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from git_workspace import write_files

from sari_core.engine import Workspace


@contextmanager
def indexed(root: Path, files: dict[str, str]) -> Iterator[Workspace]:
    """``files`` (relative path -> text) written below ``root`` and fully indexed; the
    index lives beside ``root``, never in the user's cache."""
    write_files(root, files)
    with Workspace([root], index_path=root.parent / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        yield engine
