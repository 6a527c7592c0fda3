"""The workspace the aggregation tests read, the engine over it, and small helpers.

The real engine (``sari_core.engine.Workspace``) over a small git repository when
it is available; before it lands, the kernel tests' in-memory engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_workspace import engine_over

from sari_core import Kernel
from sari_core.testing import MemoryEngine

LONG = "pkg/long.py"    # 120 numbered lines
OTHER = "pkg/other.py"  # 40 lines
TINY = "pkg/tiny.py"    # short lines: references would be longer than the text
BIG = "pkg/big.py"      # 1000 lines: over the budget's 300-line cap

FILES: dict[str, str] = {
    LONG: "".join(f"def function_{n:03d}(argument):  # line {n}\n" for n in range(1, 121)),
    OTHER: "".join(f"OTHER_CONSTANT_{n:03d} = 'value number {n}'\n" for n in range(1, 41)),
    TINY: "a = 1\nb = 2\nc = 3\n",
    BIG: "".join(f"big_value_{n:04d} = {n} * 2  # padding\n" for n in range(1, 1001)),
}


def build_engine(root: Path, files: dict[str, str]) -> Any:
    """The real engine over ``files`` committed in ``root``, or the memory engine.

    A file already in ``root`` is kept as it is: :func:`change_on_disk` changed it, and a
    second kernel over the folder must see the change.
    """
    return engine_over(root, files, keep_existing=True)


def change_on_disk(kernel: Kernel, relative: str, text: str) -> None:
    """Change a file behind Sari's back (an editor, git checkout)."""
    engine = kernel.engine
    if isinstance(engine, MemoryEngine):
        engine.files[relative] = text
        return
    (engine.roots[0] / relative).write_text(text, encoding="utf-8")


def snippet(target: str, start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {"mode": "snippet", "target": target, "start_line": start, "end_line": end, **extra}


def note(response: dict[str, Any]) -> dict[str, Any]:
    """The aggregation annotation of a read response."""
    return response["meta"]["stabilization"]["annotations"]["aggregation"]  # type: ignore[no-any-return]


def comparable(response: dict[str, Any]) -> dict[str, Any]:
    """A response without the per-kernel execution id."""
    copy = {**response, "meta": dict(response["meta"])}
    copy["meta"].pop("execution_id", None)
    return copy
