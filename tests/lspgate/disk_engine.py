"""The kernel tests' in-memory engine, writing real files: language servers read the disk.

Used until ``sari_core.engine.Workspace`` lands; ``external_write`` simulates a change
made outside Sari that the engine would notice on its next poll.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel"))

from memory_engine import MemoryEngine  # noqa: E402

from sari_core.models import FileChange  # noqa: E402


class DiskEngine(MemoryEngine):
    """Files live in ``root`` on disk (and in the dict, for reads and searches)."""

    def __init__(self, root: Path) -> None:
        files = {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
                 for path in sorted(root.rglob("*")) if path.is_file()}
        super().__init__(files, root=str(root))

    def apply_mutation(self, changes: list[FileChange]) -> None:
        for change in changes:
            target = Path(change.abs_path)
            if change.new_text is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(change.new_text, encoding="utf-8")
        super().apply_mutation(changes)

    def external_write(self, path: str, text: str | None) -> None:
        """Change a file behind Sari's back; the next call's poll raises it."""
        old = self.files.get(path)
        change = FileChange(path=path, abs_path=str(self.roots[0] / path), old_text=old,
                            new_text=text)
        self.apply_mutation([change])
        self.external.append(change)
