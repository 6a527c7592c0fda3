"""The Claude Code executable for the end-to-end tests, or a skip that says why not."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from claude_fixture import claude  # noqa: E402, F401 - the path above; offered to tests
