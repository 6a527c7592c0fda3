"""The workspace the refgate tests run on, and small helpers to drive a kernel."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine

from sari_core import Kernel

BIG_LINES = 450
FILES: dict[str, str] = {
    "app/config.py": "import json\n\n\ndef load_config(path):\n    with open(path) as handle:\n"
                     "        return json.load(handle)\n",
    "app/main.py": "from app.config import load_config\n\n\ndef main():\n"
                   "    settings = load_config('settings.json')\n    return settings\n",
    "app/server.py": "def serve(port):\n    return port\n",
    "docs/notes.md": "# Notes\n\nload_config reads JSON.\n",
    "app/big.py": "".join(f"value_{n} = {n}\n" for n in range(1, BIG_LINES + 1)),
}


def _real_engine_class() -> Any:
    try:
        from sari_core.engine import Workspace
    except ImportError:
        return None
    return Workspace


def build_workspace(root: Path, files: dict[str, str]) -> Any:
    """The real engine over a small git repository when it exists, else the memory engine."""
    workspace_class = _real_engine_class()
    if workspace_class is None:
        return MemoryEngine(files, root=str(root))
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



def run_next_call(kernel: Kernel, next_call: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """Run a response's ready-to-run call exactly as given."""
    if next_call["tool"] == "search":
        return kernel.execute_search(next_call["arguments"], **kw)
    assert next_call["tool"] == "read"
    return kernel.execute_read(next_call["arguments"], **kw)


def stabilization(response: dict[str, Any]) -> dict[str, Any]:
    return response["meta"]["stabilization"]  # type: ignore[no-any-return]
