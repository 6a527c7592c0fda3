"""``bench/client_definitions.py --smoke``: one offline Claude Code session, and the tool
definitions it sends its model, Sari's among them. Skipped with the reason where the CLI is
not installed (``tox -e claude`` installs it and runs this)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from claude_code import claude_executable  # noqa: E402


def test_the_definitions_bench_lists_sari_s_tools_and_the_totals() -> None:
    claude, reason = claude_executable()
    if claude is None:
        pytest.skip(reason)
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "client_definitions.py"),
                           "--smoke"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    out = done.stdout
    for tool in ("search", "read", "edit", "write"):
        assert re.search(rf"^ *\d+  mcp__sari__{tool}$", out, re.M), tool
    totals = re.search(r"built-in tools: (\d+), (\d+) tokens; Sari's: (\d+) tokens; "
                       r"system prompt: (\d+) tokens", out)
    assert totals and all(int(value) > 0 for value in totals.groups()), out
