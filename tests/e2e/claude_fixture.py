"""The ``claude`` fixture: the Claude Code executable, or a skip that says why not.

Shared by every folder whose tests drive the real CLI; a conftest imports it to offer it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code import claude_executable


@pytest.fixture(scope="session")
def claude() -> Path:
    executable, reason = claude_executable()
    if executable is None:
        pytest.skip(f"Claude Code end-to-end tests skipped: {reason}")
    return executable
