"""The docs install the client versions the end-to-end tests pin, not whatever npm has."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PINS = REPO / "tests" / "e2e" / "claude_code.py"
PACKAGE = "@anthropic-ai/claude-code"


def pinned_claude_code() -> str:
    found = re.search(r'^CLAUDE_CODE_VERSION = "([^"]+)"', PINS.read_text(encoding="utf-8"),
                      re.MULTILINE)
    assert found, f"{PINS} names no CLAUDE_CODE_VERSION"
    return found.group(1)


def install_commands() -> list[tuple[str, str]]:
    """``(page, command)`` for every npm command of the docs and the README naming the CLI."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    return [(str(page.relative_to(REPO)), line.strip())
            for page in pages for line in page.read_text(encoding="utf-8").splitlines()
            if "npm " in line and PACKAGE in line]


def test_the_docs_install_the_claude_code_the_claude_cell_pins() -> None:
    version = pinned_claude_code()
    commands = install_commands()
    assert any(page == "docs/quickstart.md" for page, _ in commands), \
        "the Quickstart says how to install Claude Code"
    for page, command in commands:
        assert f"{PACKAGE}@{version}" in command.split(), (page, command, version)
    quickstart = (REPO / "docs" / "quickstart.md").read_text(encoding="utf-8")
    assert f"tested with Claude Code {version}" in quickstart
