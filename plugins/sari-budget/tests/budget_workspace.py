"""The workspace the budget tests read, and the engine over it.

The real engine (``sari_core.engine.Workspace``) over a small git repository when
it is available; before it lands, the kernel tests' in-memory engine, taught to
resolve the one symbol and diff the tests use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_workspace import engine_over

SYMBOL = "helper"
SMALL = "pkg/small.py"
BIG = "pkg/big.py"          # 1000 short lines: over the 300-line cap
EXACT = "pkg/exact.py"      # exactly 300 lines: at the cap, not over it
WIDE = "pkg/wide.py"        # 100 lines of 200 characters: over the 12000-character cap
BIG_LINES = 1000
LONG_DEF = "pkg/long_def.py"  # 400 lines; def target_function spans lines 201-260
# 500 lines; def entry (151-170) calls _helper (172-230) and _far (480-490), caller (101-102)
# calls entry
NEIGHBOURS = "pkg/neighbours.py"

FILES: dict[str, str] = {
    SMALL: f"import os\n\n\ndef {SYMBOL}():\n    return os.getcwd()\n",
    BIG: "".join(f"value_{n} = {n}\n" for n in range(1, BIG_LINES + 1)),
    EXACT: "".join(f"exact_{n} = {n}\n" for n in range(1, 301)),
    WIDE: "".join(f"wide_{n:03d} = '{'x' * 189}'\n" for n in range(1, 101)),
    LONG_DEF: "".join(f"before_{n} = {n}\n" for n in range(1, 201))
    + "def target_function(value):\n" + "    value += 1\n" * 58 + "    return value\n"
    + "".join(f"after_{n} = {n}\n" for n in range(261, 401)),
    NEIGHBOURS: "".join(f"first_{n} = {n}\n" for n in range(1, 101))
    + "def caller(x):\n    return entry(x) + 1\n"
    + "".join(f"middle_{n} = {n}\n" for n in range(103, 151))
    + "def entry(value):\n    value = _helper(value)\n" + "    value += 1\n" * 17
    + "    return _far(value)\n\n"
    + "def _helper(value):\n" + "    value -= 1\n" * 57 + "    return value\n"
    + "".join(f"later_{n} = {n}\n" for n in range(231, 480))
    + "def _far(value):\n" + "    value *= 2\n" * 9 + "    return value\n"
    + "".join(f"last_{n} = {n}\n" for n in range(491, 501)),
}


def build_engine(root: Path, files: dict[str, str]) -> Any:
    """The real engine over ``files`` committed in ``root``."""
    return engine_over(root, files)


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
