"""The workspace the relevance tests run on, and the engine over it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_workspace import engine_over

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


def build_workspace(root: Path, files: dict[str, str]) -> Any:
    """The real engine over a small git repository when it exists, else the memory engine."""
    return engine_over(root, files)


def ranked_paths(search: dict[str, Any]) -> list[str]:
    """Distinct paths of a search response, in its rank order."""
    return list(dict.fromkeys(match["path"] for match in search["matches"]))
