"""A client's search for a definition, answered with the definition's body.

The agent that greps ``def name`` reads the definition next; when the search's hits hold
few short definitions of that name, the hook shows their lines with the search (in the
words of Sari's symbol search) so that read is not needed. A real kernel over a real
workspace (git, SQLite index) with the policy plugins a team installs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_secretguard")

from native_workspace import SECRET_VALUE, make_workspace  # noqa: E402

from sari_core.kernel import Kernel  # noqa: E402
from sari_core.native import NativeCall, answer, run_native_call  # noqa: E402
from sari_core.native.definitions import searched_name  # noqa: E402
from sari_core.replay.runner import policy_plugins  # noqa: E402

POLICIES = ["budget", "aggregation", "refgate", "secretguard"]
LONG = "def long_one(x):\n" + "    x += 1\n" * 300 + "    return x\n"
COMMON = "def common():\n    return {n}\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path / "ws")
    (root / "pkg" / "long.py").write_text(LONG)
    for n in range(4):
        (root / "pkg" / f"common_{n}.py").write_text(COMMON.format(n=n) + "\n\ncommon()\n")
    (root / "pkg" / "keys.py").write_text(f"def api_key():\n    return '{SECRET_VALUE}'\n")
    (root / "pkg" / "deco.py").write_text(
        "import functools\n\n\n@functools.lru_cache\ndef cached(x):\n    return x\n")
    (root / "pkg" / "calls.py").write_text(
        "def outer(x):\n    \"\"\"Not a call: shown(x).\"\"\"\n"
        "    return _helper(x) + other.thing(x)  # nor note(x)\n\n\n"
        "def _helper(x):\n    return x * 2\n\n\ndef shown(x):\n    return x\n\n\n"
        "def note(x):\n    return x\n")
    (root / "pkg" / "vault.py").write_text("def unlock(box):\n    return box.open()\n")
    (root / "pyproject.toml").write_text(
        '[tool.sari.secretguard]\nextra_blocked_globs = ["pkg/vault.py"]\n')
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "more"], cwd=root, check=True)
    return root


@pytest.fixture
def kernel(workspace: Path) -> Any:
    opened = Kernel(roots=[workspace], plugins=policy_plugins(POLICIES),
                    load_entry_points=False, analytics_sinks=[])
    opened.engine.ensure_index(progress=False)
    yield opened
    opened.close()


def hooked(kernel: Kernel, tool: str, tool_input: dict[str, Any],
           session: str = "s1") -> dict[str, Any]:
    call = NativeCall("claude-code", tool, tool_input, session, str(kernel.roots[0]))
    return answer("claude-code", run_native_call(kernel, call)).get("hookSpecificOutput", {})


def grep(pattern: str, **more: Any) -> dict[str, Any]:
    return {"pattern": pattern, "output_mode": "content", "-n": True, **more}


@pytest.mark.parametrize(("pattern", "name"), [
    ("def evolve", "evolve"), ("class FileSystemLoader", "FileSystemLoader"),
    (r"(def|class) wrap\b", "wrap"), (r"def\s+run\(", "run"), ("function render", "render"),
    ("get_value", "get_value"), (r"\bget_value\b", "get_value"),
    ("a.*b", None), ("def handler_\\d+", None), ("foo bar", None), ("self.x = 1", None),
])
def test_the_name_a_pattern_looks_for_a_definition_of(pattern: str, name: str | None) -> None:
    assert searched_name(pattern) == name


def test_a_search_for_a_definition_shows_its_body(kernel: Kernel) -> None:
    shown = hooked(kernel, "Grep", grep("def handler_23"))
    assert "permissionDecision" not in shown and "updatedInput" not in shown
    context = shown["additionalContext"]
    assert context.startswith('1 match for "handler_23" (symbol)\npkg/big.py\n')
    assert "  1321-1378: def handler_23(request):" in context
    assert "1322 |     value = request.get('x')" in context
    assert "1378 |     return value" in context
    assert "1379 |" not in context and "handler_24" not in context


def test_a_decorated_definition_is_shown_from_its_decorators(kernel: Kernel) -> None:
    context = hooked(kernel, "Grep", grep("def cached"))["additionalContext"]
    assert "  4-6: @functools.lru_cache" in context and "5 | def cached(x):" in context


def test_the_helpers_a_body_calls_are_shown_with_it(kernel: Kernel) -> None:
    """The helper of the same file the definition calls is the agent's next read; a name in
    its docstring or a comment is not a call."""
    context = hooked(kernel, "Grep", grep("def outer"))["additionalContext"]
    first, helper = context.split('1 match for "_helper" (symbol)\n')
    assert "  1-3: def outer(x):" in first
    assert helper.startswith("pkg/calls.py\n  6-7: def _helper(x):\n")
    assert "return x * 2" in helper
    assert "def shown" not in context and "def note" not in context


def test_a_shell_grep_keeps_its_plain_answer(kernel: Kernel) -> None:
    assert hooked(kernel, "Bash", {"command": "grep -n 'def handler_23' pkg/big.py"}) == {}


def test_a_whole_read_after_the_body_is_not_sent_the_body_again(kernel: Kernel,
                                                                  workspace: Path) -> None:
    hooked(kernel, "Grep", grep("def handler_23"))
    whole = hooked(kernel, "Read", {"file_path": str(workspace / "pkg/big.py")})
    assert whole["permissionDecision"] == "deny"
    reason = whole["permissionDecisionReason"]
    assert "1321-1378\t(unchanged; shown in an earlier read)" in reason
    assert "1322\t" not in reason


def test_the_shown_body_counts_as_read_in_the_session(kernel: Kernel,
                                                      workspace: Path) -> None:
    """The model holds those lines: reading them again is answered with where it saw them."""
    hooked(kernel, "Grep", grep("def handler_23"))
    again = hooked(kernel, "Read", {"file_path": str(workspace / "pkg/big.py"),
                                    "offset": 1321, "limit": 58})
    assert "unchanged; shown in an earlier read" in str(again)
    # Another session was shown nothing.
    assert hooked(kernel, "Read", {"file_path": str(workspace / "pkg/big.py"),
                                   "offset": 1321, "limit": 58}, session="s2") == {}


def test_a_bare_name_whose_hits_hold_its_definition_shows_it(kernel: Kernel) -> None:
    context = hooked(kernel, "Grep", grep(r"\bhandler_7\b"))["additionalContext"]
    assert "def handler_7(request):" in context and "    return value" in context


def test_no_body_for_a_long_definition_or_many_of_them(kernel: Kernel) -> None:
    assert hooked(kernel, "Grep", grep("def long_one")) == {}
    assert hooked(kernel, "Grep", grep("def common")) == {}  # four files define it
    # One of them, by path: its body.
    one = hooked(kernel, "Grep", grep("def common", path=str(kernel.roots[0] / "pkg" /
                                                             "common_1.py")))
    assert "pkg/common_1.py" in one["additionalContext"] and "return 1" in one[
        "additionalContext"]
    # A use of the name is not its definition.
    assert hooked(kernel, "Grep", grep(r"^common\(\)")) == {}


def test_no_body_from_a_file_a_policy_refuses_or_with_a_secret(kernel: Kernel) -> None:
    refused = hooked(kernel, "Grep", grep("def unlock"))
    assert refused["permissionDecision"] == "deny" and "box.open" not in str(refused)
    keys = hooked(kernel, "Grep", grep("def api_key"))
    assert SECRET_VALUE not in str(keys)
    assert "return" not in keys.get("additionalContext", "")
