"""What Claude Code sends its model as tool definitions, and Sari's share of them.

Runs one offline Claude Code session through the end-to-end harness of ``tests/e2e`` (the
real CLI, ``sari serve`` with every installed plugin as its MCP server, a stand-in Messages
API on 127.0.0.1 that records each request) and prints, for the first request the model
would be sent, each tool definition's size (characters / 4 of its JSON), the built-in and
Sari's totals, the system prompt's size, and the size of the built-in file tools Sari's
stand in for. Arguments after ``--`` go to the CLI, e.g. ``-- --settings
'{"permissions":{"deny":["Read","Edit","Write"]}}'`` to see those left out.

    tox -e claude   # installs the pinned CLI under .tox/claude/claude-code
    SARI_CLAUDE_CODE_PREFIX=.tox/claude/claude-code python bench/client_definitions.py

It is one short session over a one-file workspace already, so ``--smoke`` (what CI runs)
measures the same thing; without the CLI it exits 2 and says why.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from claude_code import claude_executable, run_session  # noqa: E402
from messages_standin import Turn  # noqa: E402

from sari_core.costmodel import tokens  # noqa: E402

SARI_PREFIX = "mcp__sari__"
# The client's own file tools that Sari's search, read, edit and write stand in for, when the
# client is told not to list them (``permissions.deny``); those this CLI lists are counted.
STOOD_IN_FOR = ("Read", "Edit", "Write", "MultiEdit", "Grep", "Glob")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("cli_args", nargs="*", help="more arguments for the claude CLI")
    parser.add_argument("--smoke", action="store_true",
                        help="accepted for CI: the run is already one short session")
    args = parser.parse_args()
    claude, reason = claude_executable()
    if claude is None:
        print(f"Claude Code is not available: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="sari-bench-client-") as folder:
        workspace = Path(folder) / "ws"
        workspace.mkdir()
        (workspace / "a.py").write_text("x = 1\n", encoding="utf-8")
        run = run_session(claude.resolve(), workspace, Path(folder) / "home", [Turn(text="done")],
                          "Say done.", extra_args=args.cli_args)
    requests = run.script.main_requests()
    if run.returncode != 0 or not requests:
        print(f"the session failed (exit {run.returncode}):\n{run.stderr}", file=sys.stderr)
        return 1
    first = requests[0]
    sizes = {tool["name"]: tokens(json.dumps(tool, separators=(",", ":")))
             for tool in first["tools"]}
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"{size:>7}  {name}")
    sari = sum(size for name, size in sizes.items() if name.startswith(SARI_PREFIX))
    builtin = sum(sizes.values()) - sari
    print(f"built-in tools: {len(sizes) - sum(n.startswith(SARI_PREFIX) for n in sizes)}, "
          f"{builtin} tokens; Sari's: {sari} tokens; system prompt: "
          f"{tokens(json.dumps(first.get('system')))} tokens")
    listed = [name for name in STOOD_IN_FOR if name in sizes]
    if listed:
        print(f"built-in tools Sari's stand in for ({', '.join(listed)}): "
              f"{sum(sizes[name] for name in listed)} tokens (bench/agent_cost.py "
              "--in-place-of takes this figure)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
