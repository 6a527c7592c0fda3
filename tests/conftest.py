"""Shared fixtures: Sari's state and cache folders point into a temporary folder."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

# `from memory_engine import MemoryEngine` works from every test folder, and so do the
# shared helpers of tests/support (`from git_workspace import engine_over`).
sys.path.insert(0, str(Path(__file__).parent / "kernel"))
sys.path.insert(0, str(Path(__file__).parent / "support"))

_TMP = Path(tempfile.mkdtemp(prefix="sari-tests-"))
os.environ.setdefault("SARI_STATE_DIR", str(_TMP / "state"))
os.environ.setdefault("SARI_CACHE_DIR", str(_TMP / "cache"))

# `workspace_root` and `kernels`, for the plugin folders' `make_kernel` fixtures.
pytest_plugins = ["kernel_fixtures"]


@pytest.fixture(autouse=True)
def _isolated_plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test inherits allow/deny lists or strict mode from the shell."""
    for var in ("SARI_PLUGINS", "SARI_DISABLE_PLUGINS", "SARI_STRICT_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
