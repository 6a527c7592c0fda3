"""A verdict in each client's hook protocol; never an "allow"."""

from __future__ import annotations

import json

import pytest

from sari_core.native import NativeVerdict, answer

VERDICTS = [
    NativeVerdict("untouched"),
    NativeVerdict("deny", reason="a.py outline", sari_text="a.py outline"),
    NativeVerdict("narrow", context="a.py lines 5-9 of 90.", updated_input={
        "file_path": "/w/a.py", "offset": 5, "limit": 5}, sari_text="a.py lines 5-9 of 90.\n5\tx"),
    NativeVerdict("guide", context="Not among the top 10 results."),
]


def test_claude_code_answers() -> None:
    untouched, deny, narrow, guide = (answer("claude-code", v) for v in VERDICTS)
    assert untouched == {}
    assert deny == {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                           "permissionDecision": "deny",
                                           "permissionDecisionReason": "a.py outline"}}
    # Narrowed without a permission decision: the user's own rules still apply.
    assert narrow == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "additionalContext": "a.py lines 5-9 of 90.",
        "updatedInput": {"file_path": "/w/a.py", "offset": 5, "limit": 5}}}
    assert guide == {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                            "additionalContext": "Not among the top 10 results."}}


def test_codex_cannot_rewrite_a_call_so_a_narrowed_one_is_answered_with_sari_s_text() -> None:
    untouched, deny, narrow, guide = (answer("codex", v) for v in VERDICTS)
    assert untouched == guide == {}
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert narrow["hookSpecificOutput"]["permissionDecisionReason"] == \
        "a.py lines 5-9 of 90.\n5\tx"


@pytest.mark.parametrize("client", ["claude-code", "codex"])
def test_no_answer_says_allow(client: str) -> None:
    for verdict in VERDICTS:
        assert '"allow"' not in json.dumps(answer(client, verdict))
