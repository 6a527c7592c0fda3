"""The text a model reads for a ``context_query`` answer: one line per item, no JSON envelope.

The structured answer keeps every field for programs. A model needs what happened, when,
where and what it said: an execution is ``time machine tool target outcome`` and what
the call returned (its text, else its payload without the envelope); a frame is
``time role: content``. Each item's text is cut to the operator's item size.
"""

from __future__ import annotations

import json
from typing import Any

from sari_persistence.execution_filter import outcome_label
from sari_persistence.records import bound_text

# What every stored response carries and a reader of the log does not need again.
_ENVELOPE = frozenset({"ok", "tool", "target", "meta", "error", "mode"})


def _flat(text: str) -> str:
    return " ".join(text.split())


def _returned(response: Any) -> str:
    """What a call returned, as text: a read's lines, else the payload's JSON."""
    if not isinstance(response, dict):
        return "" if response is None else str(response)
    if isinstance(response.get("text"), str):
        return str(response["text"])
    if isinstance(response.get("diff"), str):
        return str(response["diff"])
    payload = {key: value for key, value in response.items() if key not in _ENVELOPE}
    if not payload:
        return ""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def outcome(item: dict[str, Any]) -> str:
    """``ok``; ``refused CODE`` or ``failed CODE (what)``, with the answer's message."""
    label = outcome_label(bool(item.get("ok")), item.get("error_code"))
    response = item.get("response")
    error = response.get("error") if isinstance(response, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"{label}: {_flat(str(message))}" if message and not item.get("ok") else label


def execution_line(item: dict[str, Any], cap: int) -> str:
    where = f" {item['machine']}" if item.get("machine") else ""
    head = (f"[{item['time']}{where}] {item['tool']} {item.get('target') or '-'}: "
            f"{outcome(item)}")
    returned = _returned(item.get("response")) if item.get("ok") else ""
    if not returned:
        return head
    body = bound_text(returned.rstrip("\n"), cap)
    return head + "\n" + "\n".join("  " + line for line in body.split("\n"))


def frame_line(item: dict[str, Any], cap: int) -> str:
    tool = f"[{item['tool_name']}]" if item.get("tool_name") else ""
    mark = " (compacted)" if item.get("compacted") else ""
    content = bound_text(_flat(str(item.get("content") or "")), cap)
    return f"[{item['time']}] {item['role']}{tool}{mark}: {content}"


def answer_text(payload: dict[str, Any], cap: int) -> str:
    """The whole answer: a header with the counts and scope, then frames, then executions."""
    frames, executions = payload["frames"], payload["executions"]
    scope = payload["scope"]["name"]
    first = payload["offset"] + 1
    parts = []
    for label, shown, total in (("frames", frames, payload["total_frames"]),
                                ("executions", executions, payload["total_executions"])):
        span = f"{first}-{payload['offset'] + len(shown)} of {total}" if shown else f"0 of {total}"
        parts.append(f"{label} {span}")
    lines = [f"Past context ({scope} scope): {', '.join(parts)}, newest first."]
    if frames:
        lines.append("Frames:")
        lines += [frame_line(item, cap) for item in frames]
    if executions:
        lines.append("Executions:")
        lines += [execution_line(item, cap) for item in executions]
    health = payload.get("log_health")
    if health:
        lines.append("Not recorded by this server: " + ", ".join(
            f"{key.replace('_', ' ')} {value}" for key, value in sorted(health.items())) + ".")
    return "\n".join(lines)
