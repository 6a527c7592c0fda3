"""The workspace the refgate tests run on, and the engine over it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_workspace import engine_over

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


def build_workspace(root: Path, files: dict[str, str]) -> Any:
    """The real engine over a small git repository when it exists, else the memory engine."""
    return engine_over(root, files)
