"""A :class:`~sari_core.native.decide.NativeVerdict` in each client's hook protocol.

Claude Code (``PreToolUse``, JSON on stdout or as an ``mcp_tool``/``http`` hook's answer):

* deny: ``hookSpecificOutput.permissionDecision = "deny"`` with
  ``permissionDecisionReason`` (the model reads it as the tool's error result);
* narrow: ``hookSpecificOutput.updatedInput`` (the whole new input) and
  ``additionalContext``, without a ``permissionDecision``, so the user's permission
  rules still decide whether the tool runs;
* guide: ``hookSpecificOutput.additionalContext``;
* untouched: an empty answer.

Codex (``PreToolUse`` command hook, JSON on stdout): a deny in the same shape. Codex does
not apply ``updatedInput`` or ``additionalContext`` before a tool runs, so a narrowed call
is denied with Sari's own answer as the reason (it holds the lines Sari would show), and a
guided one goes ahead untouched.

Neither answer ever says "allow".
"""

from __future__ import annotations

from typing import Any

from sari_core.native.decide import NativeVerdict

PRE_TOOL_USE = "PreToolUse"


def _deny(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": PRE_TOOL_USE, "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def claude_code_answer(verdict: NativeVerdict) -> dict[str, Any]:
    """Claude Code's ``PreToolUse`` answer for ``verdict`` (``{}``: go ahead as asked)."""
    if verdict.action == "deny":
        return _deny(verdict.reason)
    output: dict[str, Any] = {"hookEventName": PRE_TOOL_USE}
    if verdict.action == "narrow" and verdict.updated_input is not None:
        output["updatedInput"] = verdict.updated_input
    if verdict.action in ("narrow", "guide") and verdict.context:
        output["additionalContext"] = verdict.context
    return {"hookSpecificOutput": output} if len(output) > 1 else {}


def codex_answer(verdict: NativeVerdict) -> dict[str, Any]:
    """Codex's ``PreToolUse`` answer for ``verdict`` (``{}``: go ahead as asked)."""
    if verdict.action == "deny":
        return _deny(verdict.reason)
    if verdict.action == "narrow":
        return _deny(verdict.sari_text or verdict.context)
    return {}


ANSWERS = {"claude-code": claude_code_answer, "codex": codex_answer}


def answer(client: str, verdict: NativeVerdict) -> dict[str, Any]:
    """``client``'s answer for ``verdict``."""
    return ANSWERS[client](verdict)
