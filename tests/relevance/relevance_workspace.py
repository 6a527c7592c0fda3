"""The workspace the relevance tests run on, and small helpers to drive a kernel."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine

from sari_core import Kernel

# Twelve modules mention "handle_request", so a search for it has more than K=10 paths.
HANDLERS = [f"svc/handler_{n:02d}.py" for n in range(1, 13)]
FILES: dict[str, str] = {
    **{path: f"def handle_request_{n:02d}(request):\n    return handle_request(request)\n"
       for n, path in enumerate(HANDLERS, 1)},
    "app/config.py": "import json\n\n\ndef load_config(path):\n    with open(path) as handle:\n"
                     "        return json.load(handle)\n",
    "app/main.py": "from app.config import load_config\n\n\ndef main():\n"
                   "    settings = load_config('settings.json')\n    return settings\n",
    "app/server.py": "def serve(port):\n    return port\n",
    "app/cli.py": "def parse_args(argv):\n    return argv\n",
    "docs/notes.md": "# Notes\n\nload_config reads JSON.\n",
    "vendor/lib/helpers.py": "def vendored():\n    return 1\n",
    "generated/schema.py": "SCHEMA = {}\n",
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


def ranked_paths(search: dict[str, Any]) -> list[str]:
    """Distinct paths of a search response, in its rank order."""
    return list(dict.fromkeys(match["path"] for match in search["matches"]))
