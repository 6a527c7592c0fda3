"""The workspace the budget tests read, and the engine over it.

The real engine (``sari_core.engine.Workspace``) over a small git repository when
it is available; before it lands, the kernel tests' in-memory engine, taught to
resolve the one symbol and diff the tests use.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine

from sari_core.models import ReadCall, ReadResult

SYMBOL = "helper"
SMALL = "pkg/small.py"
BIG = "pkg/big.py"          # 1000 short lines: over the 300-line cap
EXACT = "pkg/exact.py"      # exactly 300 lines: at the cap, not over it
WIDE = "pkg/wide.py"        # 100 lines of 200 characters: over the 12000-character cap
BIG_LINES = 1000

FILES: dict[str, str] = {
    SMALL: f"import os\n\n\ndef {SYMBOL}():\n    return os.getcwd()\n",
    BIG: "".join(f"value_{n} = {n}\n" for n in range(1, BIG_LINES + 1)),
    EXACT: "".join(f"exact_{n} = {n}\n" for n in range(1, 301)),
    WIDE: "".join(f"wide_{n:03d} = '{'x' * 189}'\n" for n in range(1, 101)),
}


class _MemoryWorkspace(MemoryEngine):
    """The memory engine plus the symbol and diff modes the wrappers need."""

    def read(self, call: ReadCall) -> ReadResult:
        if call.mode == "symbol":
            call = call.model_copy(update={"mode": "snippet", "target": SMALL,
                                           "start_line": 4, "end_line": 5})
        result = super().read(call)
        if call.mode == "diff_preview":
            result.diff = ""
        return result


def real_engine_class() -> Any:
    try:
        from sari_core.engine import Workspace
    except ImportError:
        return None
    return Workspace


def build_engine(root: Path, files: dict[str, str]) -> Any:
    workspace_class = real_engine_class()
    if workspace_class is None:
        return _MemoryWorkspace(files, root=str(root))
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                        "commit", "-q", "-m", "fixture"], check=True)
    return workspace_class([root])


# One ordinary read per entrypoint, with the wrapper's own argument names.
READS: dict[str, dict[str, Any]] = {
    "read": {"mode": "file", "target": SMALL},
    "read_file": {"path": SMALL},
    "read_symbol": {"name": SYMBOL},
    "get_snippet": {"path": SMALL, "start_line": 1, "end_line": 2},
    "dry_run_diff": {"path": SMALL, "against": "HEAD"},
}
# `read` in each mode.
MODE_READS: dict[str, dict[str, Any]] = {
    "file": {"mode": "file", "target": SMALL},
    "symbol": {"mode": "symbol", "target": SYMBOL},
    "snippet": {"mode": "snippet", "target": SMALL, "start_line": 1, "end_line": 2},
    "diff_preview": {"mode": "diff_preview", "target": SMALL, "against": "HEAD"},
}


def stabilization(response: dict[str, Any]) -> dict[str, Any]:
    return response["meta"]["stabilization"]  # type: ignore[no-any-return]
