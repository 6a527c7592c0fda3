"""`sari replay` on a transcript the real Claude Code CLI wrote during this test.

The session uses Claude Code's own Read, Grep, Glob and Edit against a scripted model;
the replay must count what the model was really sent (the stand-in recorded it), run
every call through Sari's hooks at the session's commit (the edit asked of the policies,
applied to the replay's own copy), and leave the workspace as the session left it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from claude_code import run_session
from messages_standin import ToolCall, Turn
from transcripts import git_workspace, tree_state

from sari_core.costmodel import tokens

CART = "".join(f"def price_{n}(item):\n    return item.price * {n}\n\n\n" for n in range(1, 60))
REMINDER = "\n\n<system-reminder>"


def test_replay_of_a_real_claude_code_session(claude: Path, tmp_path: Path) -> None:
    workspace = git_workspace(tmp_path / "shop", {"shop/cart.py": CART,
                                                  "shop/__init__.py": "",
                                                  "README.md": "A shop.\n"})
    cart = str(workspace / "shop" / "cart.py")
    turns = [
        Turn(calls=(ToolCall("Glob", {"pattern": "**/*.py"}),)),
        Turn(calls=(ToolCall("Grep", {"pattern": "def price_4\\d", "output_mode": "content",
                                      "-n": True}),)),
        Turn(calls=(ToolCall("Read", {"file_path": cart, "offset": 160, "limit": 40}),)),
        Turn(calls=(ToolCall("Read", {"file_path": cart}),)),
        Turn(calls=(ToolCall("Edit", {"file_path": cart, "old_string": "* 42\n",
                                      "new_string": "* 42.0\n"}),)),
        Turn(text="Done."),
    ]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Make price_42 a float.",
                      allowed_tools=("Read", "Grep", "Glob", "Edit"))
    assert run.returncode == 0, run.stderr
    assert run.offline_attempts == []
    [transcript] = run.transcripts
    sent = [text.split(REMINDER, 1)[0] for text in run.script.tool_results().values()]
    assert len(sent) == 5
    before = tree_state(workspace)
    env = {**os.environ, "SARI_PLUGINS": "none"}
    done = subprocess.run([sys.executable, "-m", "sari_core.cli.main", "replay",
                           str(transcript), "--workspace", str(workspace), "--compare", "none",
                           "budget,aggregation", "--json"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    core, policies = report["sessions"]
    assert core["policies"] == [] and policies["policies"] == ["budget", "aggregation"]
    for session in (core, policies):
        assert session["calls_recorded"] == 5
        # Every call goes through the hooks' path, the Edit too (asked, not applied).
        assert session["replayed"] == 5 and session["passed_through"] == 0
        assert session["errors"] == 0 and session["coverage"] == 1.0
        assert session["follow_ups"] == 0  # the edited line was shown by the ranged read
        # What the model was sent then, as the stand-in API recorded it.
        assert session["then"]["result_tokens"] == sum(tokens(text) for text in sent)
        assert session["then"]["turns"] == 6
        assert session["commit"] is not None
        assert session["changed_since"] == ["shop/cart.py"]  # the session edited it
    assert core["refusals"] == []
    # The whole re-read: aggregation shows the new lines and a reference to those shown.
    assert [r["call_index"] for r in policies["refusals"]] == [3]
    assert core["sari"]["result_tokens"] > 0
    assert report["totals"][0]["sessions"] == 1
    assert tree_state(workspace) == before  # the replay wrote nothing into the workspace
    assert "return item.price * 42.0" in (workspace / "shop" / "cart.py").read_text()
