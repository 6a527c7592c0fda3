"""The bounds of the workspace's file set, in a module that imports nothing.

The index, the scan before it and the command line's early scan all read them; the
last runs before the rest of Sari is loaded, so these values live apart.
"""

from __future__ import annotations

# Folders nobody wants searched (see engine.files.ignore for the whole rule set).
DEFAULT_EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".jj",
    "node_modules", "bower_components", "vendor",
    "dist", "build",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".eggs",
    ".venv", "venv",
})
MAX_INDEX_BYTES = 16 * 1024 * 1024  # larger files are listed but not searched
