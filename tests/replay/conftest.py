"""Transcripts for `sari replay` come from the real Claude Code CLI (tests/e2e) or by hand."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))

from claude_fixture import claude  # noqa: E402, F401 - the path above; offered to tests
