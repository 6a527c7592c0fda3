"""The client's own tools through Sari's policies: the verdicts a user's agent would meet.

A real kernel over a real workspace (git, SQLite index) with the policy plugins a team
installs; each native call goes through :func:`run_native_call`, as every hook type does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sari_budget")
pytest.importorskip("sari_aggregation")
pytest.importorskip("sari_refgate")
pytest.importorskip("sari_secretguard")

from native_workspace import SECRET_VALUE, make_workspace  # noqa: E402

from sari_core import hookimpl  # noqa: E402
from sari_core.kernel import Kernel  # noqa: E402
from sari_core.native import NativeCall, answer, run_native_call  # noqa: E402
from sari_core.native.sessions import connection_for, identity_for  # noqa: E402
from sari_core.replay.runner import policy_plugins  # noqa: E402

POLICIES = ["budget", "aggregation", "refgate", "secretguard"]
class Recorder:
    """Keeps what the execution log is told (``on_call_complete``)."""

    name = "recorder"

    def __init__(self) -> None:
        self.records: list[Any] = []

    @hookimpl
    def on_call_complete(self, record: Any) -> None:
        self.records.append(record)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def kernel(workspace: Path, recorder: Recorder) -> Any:
    opened = Kernel(roots=[workspace], plugins=[*policy_plugins(POLICIES), recorder],
                    load_entry_points=False, analytics_sinks=[])
    opened.engine.ensure_index(progress=False)
    yield opened
    opened.close()


def native(kernel: Kernel, tool: str, tool_input: dict[str, Any], session: str = "s1",
           client: str = "claude-code") -> dict[str, Any]:
    call = NativeCall(client, tool, tool_input, session, str(kernel.roots[0]))
    return answer(client, run_native_call(kernel, call))


def hook_output(answered: dict[str, Any]) -> dict[str, Any]:
    return answered.get("hookSpecificOutput", {})


def test_whole_read_of_a_long_module_after_a_search_is_narrowed_to_the_definition(
        kernel: Kernel, workspace: Path) -> None:
    big = str(workspace / "pkg" / "big.py")
    # A shell's grep: a Grep for a definition would show its body (no read needed).
    assert native(kernel, "Bash", {"command": "grep -n 'def handler_23' pkg/big.py"}) == {}
    narrowed = hook_output(native(kernel, "Read", {"file_path": big}))
    assert "permissionDecision" not in narrowed
    updated = narrowed["updatedInput"]
    assert updated["file_path"] == big
    first, last = updated["offset"], updated["offset"] + updated["limit"] - 1
    assert first <= 1321 and last >= 1378 and updated["limit"] < 120  # handler_23, not 2,400
    assert "the definition the search matched (lines 1321-1378)" in narrowed["additionalContext"]


def test_a_narrowed_whole_read_carries_the_outline_of_the_rest(
        kernel: Kernel, workspace: Path) -> None:
    """So the next definition the agent needs is one read away, not a search and a read."""
    native(kernel, "Bash", {"command": "grep -n 'def handler_23' pkg/big.py"})
    narrowed = hook_output(native(kernel, "Read", {"file_path": str(workspace / "pkg/big.py")}))
    context = narrowed["additionalContext"]
    assert "Outline of pkg/big.py:" in context
    assert "handler_1 1-58" in context and "handler_40 2341-2398" in context


def test_a_read_ending_inside_a_definition_it_began_is_extended_to_its_end(
        kernel: Kernel, workspace: Path) -> None:
    """A definition cut in two costs the agent a call for its rest: a range that began a
    definition and ends inside it asks for the lines to its end instead."""
    big = str(workspace / "pkg" / "big.py")
    extended = hook_output(native(kernel, "Read", {"file_path": big, "offset": 1495,
                                                   "limit": 30}))
    assert "permissionDecision" not in extended
    assert extended["updatedInput"] == {"file_path": big, "offset": 1495, "limit": 64}
    assert "function handler_26 (lines 1501-1558)" in extended["additionalContext"]
    # Lines inside a definition begun above them: the agent chose them; left as asked.
    assert native(kernel, "Read", {"file_path": big, "offset": 1450, "limit": 20},
                  session="s2") == {}


def test_a_read_answered_with_sari_s_text_gets_the_rest_of_the_definition_it_cut(
        kernel: Kernel, workspace: Path) -> None:
    """Lines already shown come back as a reference, so Sari answers the read itself; the
    definition the range began and cut is given to its end in that answer too."""
    big = str(workspace / "pkg" / "big.py")
    native(kernel, "Grep", {"pattern": "def handler_25", "output_mode": "content"})
    denied = hook_output(native(kernel, "Read", {"file_path": big, "offset": 1490,
                                                 "limit": 20}))
    assert denied["permissionDecision"] == "deny"
    reason = denied["permissionDecisionReason"]
    assert "1490-1498\t(unchanged; shown in an earlier read)" in reason
    assert ("Extended to line 1558: the asked lines ended inside function handler_26 "
            "(lines 1501-1558).") in reason
    assert "1558\t    return value" in reason and "1559\t" not in reason


def test_a_repeated_read_is_answered_with_the_aggregation_note(kernel: Kernel,
                                                                workspace: Path) -> None:
    big = str(workspace / "pkg" / "big.py")
    native(kernel, "Grep", {"pattern": "def handler_23", "output_mode": "content"})
    native(kernel, "Read", {"file_path": big})
    again = hook_output(native(kernel, "Read", {"file_path": big}))
    assert again["permissionDecision"] == "deny"
    assert "unchanged; shown in an earlier read" in again["permissionDecisionReason"]


def test_a_short_file_is_untouched(kernel: Kernel, workspace: Path) -> None:
    assert native(kernel, "Read", {"file_path": str(workspace / "pkg" / "small.py")}) == {}
    assert native(kernel, "Bash", {"command": "cat pkg/small.py"}) == {}


@pytest.mark.parametrize(("tool", "tool_input"), [
    ("Read", {"file_path": ".env"}),
    ("Bash", {"command": "cat .env"}),
    ("Bash", {"command": "head -n 1 .env"}),
    ("Bash", {"command": "grep -rn API_KEY ."}),
    ("Grep", {"pattern": "API_KEY", "output_mode": "content"}),
    ("Bash", {"command": "cat .env | base64"}),  # not understood, but it names the file
])
def test_secret_files_are_refused_however_they_are_read(kernel: Kernel, workspace: Path,
                                                        tool: str,
                                                        tool_input: dict[str, Any]) -> None:
    if "file_path" in tool_input:
        tool_input = {"file_path": str(workspace / tool_input["file_path"])}
    refused = hook_output(native(kernel, tool, tool_input))
    assert refused["permissionDecision"] == "deny"
    reason = refused["permissionDecisionReason"]
    assert ".env" in reason or "secret" in reason
    assert SECRET_VALUE not in reason


def test_a_blind_whole_read_of_a_long_file_is_answered_with_its_outline(
        kernel: Kernel, workspace: Path) -> None:
    refused = hook_output(native(kernel, "Read", {"file_path": str(workspace / "pkg" /
                                                                   "big.py")}))
    assert refused["permissionDecision"] == "deny"
    reason = refused["permissionDecisionReason"]
    assert reason.startswith("pkg/big.py outline (file of 2400 lines).")
    assert "function handler_23 1321-1378" in reason


def test_a_blind_read_that_names_its_lines_is_left_as_asked(
        kernel: Kernel, workspace: Path) -> None:
    """Sari would answer it with an outline, but the agent chose those lines: denying it
    would only make it ask for them again, a turn more."""
    assert native(kernel, "Read", {"file_path": str(workspace / "pkg" / "big.py"),
                                   "offset": 100, "limit": 400}) == {}


def test_a_grep_that_would_flood_is_capped(kernel: Kernel) -> None:
    capped = hook_output(native(kernel, "Grep", {"pattern": "value", "output_mode": "content"}))
    assert capped["updatedInput"] == {"pattern": "value", "output_mode": "content",
                                      "head_limit": 100}
    assert "Output capped at 100 lines" in capped["additionalContext"]
    shell = hook_output(native(kernel, "Bash", {"command": "grep -rn value pkg"}))
    assert shell["updatedInput"] == {"command": "grep -rn value pkg | head -n 100"}
    assert native(kernel, "Grep", {"pattern": "value", "output_mode": "content",
                                   "head_limit": 20}) == {}  # it capped itself


def test_a_bash_read_of_a_long_file_is_narrowed_with_sed(kernel: Kernel,
                                                         workspace: Path) -> None:
    native(kernel, "Bash", {"command": "grep -n 'def handler_7' pkg/big.py"})
    narrowed = hook_output(native(kernel, "Bash", {"command": "cat pkg/big.py"}))
    command = narrowed["updatedInput"]["command"]
    assert command.startswith("sed -n '") and command.endswith(
        f"p' {workspace / 'pkg' / 'big.py'}")


def test_codex_gets_the_narrowed_lines_in_the_denial(kernel: Kernel) -> None:
    native(kernel, "Bash", {"command": "grep -n 'def handler_7' pkg/big.py"}, client="codex")
    denied = hook_output(native(kernel, "Bash", {"command": "cat pkg/big.py"}, client="codex"))
    assert denied["permissionDecision"] == "deny"
    assert "def handler_7(request):" in denied["permissionDecisionReason"]


def test_native_and_sari_calls_of_one_client_session_share_its_state(
        kernel: Kernel, workspace: Path) -> None:
    call = NativeCall("claude-code", "Read", {"file_path": str(workspace / "pkg" / "small.py")},
                      "s1", str(workspace))
    run_native_call(kernel, call)
    # As the server runs the model's own call on the connection the hook bound.
    own = kernel.execute_read({"mode": "file", "target": "pkg/small.py"},
                              connection_id=connection_for(call), identity=identity_for(call))
    assert own["meta"]["stabilization"]["metrics_snapshot"]["reads_count"] == 2
    other = run_native_call(kernel, NativeCall("claude-code", "Read", dict(call.input), "s2",
                                               str(workspace)))
    assert other.response is not None
    assert other.response["meta"]["stabilization"]["metrics_snapshot"]["reads_count"] == 1


def test_native_calls_are_marked_in_the_execution_log(kernel: Kernel, workspace: Path,
                                                      recorder: Recorder) -> None:
    native(kernel, "Read", {"file_path": str(workspace / "pkg" / "small.py")})
    native(kernel, "Bash", {"command": "grep -rn needle pkg"})
    kernel.execute_read({"mode": "file", "target": "pkg/small.py"})
    assert [(r.tool, r.native) for r in recorder.records] == [
        ("read", "claude-code:Read"), ("search", "claude-code:Bash"), ("read", None)]


def test_a_native_edit_is_only_asked_never_applied(kernel: Kernel, workspace: Path) -> None:
    small = workspace / "pkg" / "small.py"
    before = small.read_text()
    assert native(kernel, "Edit", {"file_path": str(small), "old_string": "return 1",
                                   "new_string": "return 2"}) == {}
    assert native(kernel, "Write", {"file_path": str(small), "content": "x = 1\n"}) == {}
    assert small.read_text() == before  # the client writes the file, not Sari


def test_calls_sari_has_no_policy_for_are_untouched(kernel: Kernel, workspace: Path) -> None:
    assert native(kernel, "TodoWrite", {"todos": []}) == {}
    assert native(kernel, "Read", {"file_path": str(workspace / "missing.py")}) == {}
    assert native(kernel, "Bash", {"command": "pytest -q"}) == {}
    assert native(kernel, "Read", {"file_path": "/etc/hostname"}) == {}  # outside: the client's
    notebook = workspace / "analysis.ipynb"  # long, unsearched: a .py would be outlined
    notebook.write_text('{"cells": [\n' + '{"source": "x = 1"},\n' * 400 + "{}]}\n")
    assert native(kernel, "Read", {"file_path": str(notebook)}) == {}  # the client shows cells


def test_a_recorded_session_is_replayed_on_another_copy_of_its_workspace(
        kernel: Kernel) -> None:
    """A replay runs a transcript's calls, whose paths name the folder the session ran in,
    on a copy elsewhere: ``recorded_root`` says which folder the copy stands for."""
    ran_in = "/home/dev/shop"

    def recorded(tool: str, tool_input: dict[str, Any]) -> Any:
        return run_native_call(kernel, NativeCall("claude-code", tool, tool_input, "rec",
                                                  ran_in, recorded_root=ran_in))

    recorded("Grep", {"pattern": "def handler_23", "path": f"{ran_in}/pkg"})
    narrowed = recorded("Read", {"file_path": f"{ran_in}/pkg/big.py"})
    assert narrowed.action == "narrow" and narrowed.updated_input["offset"] <= 1321
    assert recorded("Read", {"file_path": "pkg/small.py"}).action == "untouched"
    assert recorded("Read", {"file_path": f"{ran_in}/.env"}).action == "deny"
    live = run_native_call(kernel, NativeCall("claude-code", "Read", {
        "file_path": f"{ran_in}/pkg/big.py"}, "live", ran_in))
    assert live.action == "untouched"  # a live hook's path outside the workspace: the client's


def test_under_strict_session_mode_native_calls_get_every_policy(
        workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that insists on a named session serves native calls whole: the client's
    ``session_id`` names it, so a long read after a search is narrowed, a repeated read
    is answered from the ledger, and a secret file is refused, as without strict mode."""
    monkeypatch.setenv("SARI_STRICT_SESSION_ID", "1")
    strict = Kernel(roots=[workspace], plugins=policy_plugins(POLICIES),
                    load_entry_points=False, analytics_sinks=[])
    try:
        refused = hook_output(native(strict, "Read", {"file_path": str(workspace / ".env")}))
        assert refused["permissionDecision"] == "deny"
        assert ".env is a secret file" in refused["permissionDecisionReason"]
        assert native(strict, "Bash", {"command": "grep -n 'def handler_23' pkg/big.py"}) == {}
        big = str(workspace / "pkg" / "big.py")
        narrowed = hook_output(native(strict, "Read", {"file_path": big}))
        assert narrowed["updatedInput"]["offset"] <= 1321
        assert native(strict, "Read", {"file_path": str(workspace / "pkg" / "small.py")}) == {}
        again = hook_output(native(strict, "Read", {"file_path": big}))
        assert again["permissionDecision"] == "deny"
        assert "shown in an earlier read" in again["permissionDecisionReason"]
        # A call without the client's session id is still refused before any policy.
        anonymous = run_native_call(strict, NativeCall("claude-code", "Read", {"file_path": big},
                                                       None, str(workspace)))
        assert anonymous.action == "untouched"
    finally:
        strict.close()


def test_native_reads_spend_lines_not_the_read_count_and_are_never_refused(
        workspace: Path) -> None:
    """A long session reading with the client's own tools: its reads are never refused by
    the budget (each refusal would only cost the agent a turn), they spend the session's
    lines, and past the line budget a whole read is narrowed to a window it can read on
    from, not denied. Sari's own reads keep their read count."""
    budget = Kernel(roots=[workspace], plugins=policy_plugins(["budget"]),
                    settings={"budget": {"max_reads_per_session": 5,
                                         "max_total_read_lines": 300}},
                    load_entry_points=False, analytics_sinks=[])
    try:
        small = {"file_path": str(workspace / "pkg" / "small.py")}
        assert [native(budget, "Read", small) for _ in range(8)] == [{}] * 8  # 8 > 5 reads
        own = budget.execute_read({"mode": "file", "target": "pkg/small.py"},
                                  identity=identity_for(NativeCall("claude-code", "Read", small,
                                                                   "s1", str(workspace))))
        metrics = own["meta"]["stabilization"]["metrics_snapshot"]
        assert own["ok"] and metrics["budget_reads_remaining"] == 5 - 1
        assert metrics["budget_native_reads"] == 8
        assert metrics["budget_lines_remaining"] == 300 - 9 * 2
        big = str(workspace / "pkg" / "big.py")
        for first in (1, 301):  # 300 named lines: the budget's last lines, then past it
            ranged = native(budget, "Read", {"file_path": big, "offset": first, "limit": 300})
            assert "permissionDecision" not in hook_output(ranged)
        past = hook_output(native(budget, "Read", {"file_path": big, "offset": 601,
                                                   "limit": 300}))
        assert "permissionDecision" not in past
        assert past["updatedInput"]["offset"] == 601 and past["updatedInput"]["limit"] == 60
        assert "max_total_read_lines" in past["additionalContext"]
        # Sari's own read, past the same line budget, is still refused with its advice.
        refused = budget.execute_read({"mode": "file", "target": "pkg/small.py"},
                                      identity=identity_for(NativeCall(
                                          "claude-code", "Read", small, "s1", str(workspace))))
        assert refused["error"]["code"] == "BUDGET_EXCEEDED"
    finally:
        budget.close()
