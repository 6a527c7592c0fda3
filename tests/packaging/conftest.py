"""Packaging tests build wheels and venvs: they need pip and setuptools (the [test] extra)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from isolated_venv import build_sari_core_wheel

if sys.platform == "win32":  # the venv layout used here is posix
    pytest.skip("posix venv layout", allow_module_level=True)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: builds wheels or virtualenvs (deselect: -m 'not slow')")


@pytest.fixture(scope="session")
def sari_core_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = [m for m in ("pip", "setuptools", "wheel") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (the [test] extra installs them)")
    scratch = tmp_path_factory.mktemp("sari-core-build")
    return build_sari_core_wheel(scratch / "wheels", scratch)
