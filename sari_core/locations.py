"""Where Sari keeps its files: never in the workspace, always in the user's folders.

``SARI_STATE_DIR`` and ``SARI_CACHE_DIR`` override the platform defaults (tests
and CI point them at temporary folders).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def state_dir() -> Path:
    override = os.environ.get("SARI_STATE_DIR")
    return Path(override) if override else Path(platformdirs.user_state_dir("sari"))


def cache_dir() -> Path:
    override = os.environ.get("SARI_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir("sari"))


def log_dir() -> Path:
    return state_dir() / "logs"
