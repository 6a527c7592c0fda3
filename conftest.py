"""Fixtures shared by every test folder of this repository (tests/ and each plugin's tests/):
Sari's state and cache folders point into a temporary folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from sari_core.testing import Kernels

# The helper folders (tests/kernel, tests/support) are on the import path of every test
# folder, the plugins' included, through the `pythonpath` option of
# [tool.pytest.ini_options], not by editing sys.path here.

_TMP = Path(tempfile.mkdtemp(prefix="sari-tests-"))
os.environ.setdefault("SARI_STATE_DIR", str(_TMP / "state"))
os.environ.setdefault("SARI_CACHE_DIR", str(_TMP / "cache"))
# No test reads the operator's own config file; one that needs one points here.
os.environ.setdefault("SARI_CONFIG_FILE", str(_TMP / "config" / "config.toml"))


@pytest.fixture(autouse=True)
def _isolated_plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test inherits allow/deny lists or strict mode from the shell."""
    for var in ("SARI_PLUGINS", "SARI_DISABLE_PLUGINS", "SARI_STRICT_SESSION_ID",
                "SARI_TRUSTED_WORKSPACES"):
        monkeypatch.delenv(var, raising=False)


# The plugin folders' `make_kernel` fixtures build on sari-core's own pytest fixtures (its
# `pytest11` plugin, sari_core.testing.pytest_plugin), under the names they have here.
@pytest.fixture
def workspace_root(sari_workspace: Path) -> Path:
    return sari_workspace


@pytest.fixture
def kernels(sari_kernels: Kernels) -> Kernels:
    return sari_kernels
