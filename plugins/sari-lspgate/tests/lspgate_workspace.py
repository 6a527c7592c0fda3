"""Workspaces for the lspgate tests: real files on disk, the real engine when it is there.

Language servers read the disk, so the engine must write real files: the real
``sari_core.engine.Workspace`` when it imports, else the kernel tests' in-memory engine
extended to write files (``DiskEngine``). ``external_write`` changes a file behind Sari's
back; the next call's poll raises it through ``on_mutation(source="external")``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sari_core import Kernel
from sari_core.models import FileChange
from sari_core.testing import MemoryEngine

KernelFactory = Callable[..., Kernel]


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
        old = self.files.get(path)
        change = FileChange(path=path, abs_path=str(self.roots[0] / path), old_text=old,
                            new_text=text)
        self.apply_mutation([change])
        self.external.append(change)


def write_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build_engine(root: Path, files: dict[str, str]) -> Any:
    """The real engine over ``root`` (part of sari-core: an import error fails the test)."""
    from sari_core.engine import Workspace

    write_files(root, files)
    return Workspace([root])


def external_write(engine: Any, root: Path, path: str, text: str) -> None:
    """Change a file on disk outside Sari."""
    if isinstance(engine, DiskEngine):
        engine.external_write(path, text)
    else:
        (root / path).write_text(text, encoding="utf-8")


def lspgate_kernel(root: Path, files: dict[str, str], **settings: Any) -> Kernel:
    """A kernel over ``files`` written to ``root``, with only the lspgate plugin."""
    from sari_lspgate import LspGatePlugin

    engine = build_engine(root, files)
    return Kernel(engine, plugins=[LspGatePlugin()], load_entry_points=False,
                  settings={"lspgate": settings}, analytics_sinks=[])


def edit(kernel: Kernel, path: str, old: str, new: str, session: str) -> dict[str, Any]:
    return kernel.execute_mutation("edit", {"path": path, "old_string": old, "new_string": new,
                                            "session_id": session})


def stabilization(response: dict[str, Any]) -> dict[str, Any]:
    return response["meta"]["stabilization"]


def gate_note(response: dict[str, Any]) -> dict[str, Any]:
    """What lspgate recorded in the response (``annotations.lspgate``)."""
    return stabilization(response).get("annotations", {}).get("lspgate", {})
