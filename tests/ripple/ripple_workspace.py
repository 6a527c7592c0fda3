"""Workspaces for the ripple tests, and a tracker driver for table-driven scenarios."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine

from sari_core.models import FileChange
from sari_ripple import RippleTracker


class DiskMemoryEngine(MemoryEngine):
    """The kernel tests' memory engine, with its files also on disk (ripple hashes the
    files it tiers, as they are in the workspace)."""

    def __init__(self, files: dict[str, str], root: Path) -> None:
        super().__init__(files, root=str(root))
        for relative, text in files.items():
            _write(root, relative, text)

    def apply_mutation(self, changes: list[FileChange]) -> None:
        super().apply_mutation(changes)
        for change in changes:
            path = self.roots[0] / change.path
            if change.new_text is None:
                path.unlink(missing_ok=True)
            else:
                _write(self.roots[0], change.path, change.new_text)


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def real_engine_class() -> Any:
    try:
        from sari_core.engine import Workspace
    except ImportError:
        return None
    return Workspace


def git_repository(root: Path, files: dict[str, str]) -> Path:
    """A small git repository with ``files``, committed."""
    for relative, text in files.items():
        _write(root, relative, text)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "fixture"], check=True)
    return root


def build_engine(root: Path, files: dict[str, str]) -> Any:
    """The real engine over a git repository when it exists, else the memory engine on disk."""
    workspace_class = real_engine_class()
    if workspace_class is None:
        return DiskMemoryEngine(files, root)
    git_repository(root, files)
    return workspace_class([root])


# --- tracker scenarios ------------------------------------------------------------------

TierState = dict[str, dict[str, int]]


def tier_state(tracker: RippleTracker) -> TierState:
    """``{tier: {item: N}}`` of every non-empty tier: the form the tables are written in."""
    return {tier: {item: tracker.get_n_value(item) for item in items}
            for tier, items in tracker.get_items_by_tier().items() if items}


class Contents:
    """Item contents for ``get_content``: every item exists with a version number."""

    def __init__(self) -> None:
        self.versions: dict[str, int] = {}
        self.deleted: set[str] = set()

    def __call__(self, item: str) -> str | None:
        if item in self.deleted:
            return None
        return f"{item} v{self.versions.get(item, 0)}"

    def touch(self, item: str) -> None:
        self.versions[item] = self.versions.get(item, 0) + 1
