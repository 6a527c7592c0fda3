"""Transcripts for `sari replay` come from the real Claude Code CLI (tests/e2e) or by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))

from claude_code import claude_executable  # noqa: E402 - needs the path above


@pytest.fixture(scope="session")
def claude() -> Path:
    executable, reason = claude_executable()
    if executable is None:
        pytest.skip(f"Claude Code end-to-end tests skipped: {reason}")
    return executable
