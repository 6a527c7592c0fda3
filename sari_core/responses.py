"""The response contract: every tool answers with one JSON object of this shape.

``{ok, mode|query|tool, target, <payload>, location?, meta: {truncated,
token_estimate, preview_degraded, stabilization: {suggested_next_action, warnings,
reason_codes, metrics_snapshot, next_calls, annotations?}}}``; refusals add
``error: {code, message, hint}`` and set ``ok: false``. Plugins publish further
top-level stabilization keys through registered fields (:mod:`sari_core.kernel.stabilization`);
the kernel adds them as each response leaves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from sari_core.models import NextCall, ReadCall, ReadResult, SearchResult

CHARS_PER_TOKEN = 4


class Decision(Protocol):
    """What a response reports of the kernel's decision on a call: the kernel's
    :class:`~sari_core.kernel.verdicts.FoldedVerdict`, read here by its fields alone (the
    kernel builds on this module, not the other way)."""

    @property
    def suggested_next_action(self) -> str | None: ...

    @property
    def warnings(self) -> Sequence[str]: ...

    @property
    def reason_codes(self) -> Sequence[str]: ...

    @property
    def next_calls(self) -> Sequence[NextCall]: ...

    @property
    def annotations(self) -> Mapping[str, Mapping[str, Any]]: ...

    @property
    def preview_degraded(self) -> bool: ...


def token_estimate(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _next_calls_json(calls: Sequence[NextCall]) -> list[dict[str, Any]]:
    return [{"tool": call.tool, "arguments": call.arguments} for call in calls]


def stabilization(folded: Decision, metrics: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "suggested_next_action": folded.suggested_next_action,
        "warnings": list(folded.warnings),
        "reason_codes": list(folded.reason_codes),
        "metrics_snapshot": metrics,
        "next_calls": _next_calls_json(folded.next_calls),
    }
    annotations = {plugin: data for plugin, data in folded.annotations.items() if data}
    if annotations:
        block["annotations"] = annotations
    return block


def _meta(folded: Decision, metrics: dict[str, Any], *, truncated: bool, tokens: int,
          degraded: bool, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "truncated": truncated,
        "token_estimate": tokens,
        "preview_degraded": degraded,
    }
    if extra:
        meta.update(extra)
    meta["stabilization"] = stabilization(folded, metrics)
    return meta


def read_response(call: ReadCall, result: ReadResult, folded: Decision,
                  metrics: dict[str, Any], execution_id: str) -> dict[str, Any]:
    degraded = result.preview_degraded or folded.preview_degraded
    body: dict[str, Any] = {"ok": True, "mode": call.mode, "target": call.target,
                            "text": result.text}
    if result.diff is not None:
        body["diff"] = result.diff
    if result.location is not None:
        body["location"] = result.location.model_dump()
    payload = result.text if result.diff is None else result.diff
    extra = {"path": result.path, "start_line": result.start_line, "end_line": result.end_line,
             "total_lines": result.total_lines, "execution_id": execution_id, **result.extra}
    notes = extra.pop("notes", None) or []  # how the engine chose what it read: said first
    body["meta"] = _meta(folded, metrics, truncated=result.truncated,
                         tokens=token_estimate(payload), degraded=degraded, extra=extra)
    if notes:
        warnings = body["meta"]["stabilization"]["warnings"]
        warnings[:0] = [note for note in notes if note not in warnings]
    return body


def search_response(result: SearchResult, folded: Decision, metrics: dict[str, Any],
                    execution_id: str) -> dict[str, Any]:
    matches = [match.model_dump(exclude_none=True) for match in result.matches]
    tokens = sum(token_estimate(m.get("snippet", "")) + token_estimate(m.get("context", ""))
                 for m in matches)
    body: dict[str, Any] = {"ok": True, "query": result.query, "kind": result.kind,
                            "matches": matches, "total": result.total}
    extra = {"index_ready": result.index_ready, "execution_id": execution_id, **result.extra}
    body["meta"] = _meta(folded, metrics, truncated=result.truncated, tokens=tokens,
                         degraded=False, extra=extra)
    if result.notes:  # how the engine found the matches comes before what policies add
        warnings = body["meta"]["stabilization"]["warnings"]
        warnings[:0] = [note for note in result.notes if note not in warnings]
    return body


def tool_response(tool: str, target: str | None, payload: dict[str, Any], folded: Decision,
                  metrics: dict[str, Any], execution_id: str) -> dict[str, Any]:
    body: dict[str, Any] = {"ok": True, "tool": tool, "target": target, **payload}
    text = str(payload)
    body["meta"] = _meta(folded, metrics, truncated=False, tokens=token_estimate(text),
                         degraded=False, extra={"execution_id": execution_id})
    return body


def error_response(
    kind: dict[str, Any],
    code: str,
    message: str,
    hint: str,
    folded: Decision,
    metrics: dict[str, Any],
    execution_id: str | None = None,
) -> dict[str, Any]:
    """A refusal. ``kind`` holds the identifying keys (``mode``/``query``/``tool``, ``target``).

    Each is a string or null: a refused call may have passed anything (``{"query": 5}``), and
    echoing it would break the tool's output schema, which a client validating the result
    then reports instead of the refusal (the message names the wrong value).
    """
    body: dict[str, Any] = {"ok": False,
                            **{key: value if isinstance(value, str) else None
                               for key, value in kind.items()},
                            "error": {"code": code, "message": message, "hint": hint}}
    extra = {"execution_id": execution_id} if execution_id else None
    body["meta"] = _meta(folded, metrics, truncated=False, tokens=0, degraded=False, extra=extra)
    return body


def change_summary(change: Any) -> dict[str, Any]:
    """One changed file in an ``edit``/``write`` response."""
    old_lines = (change.old_text or "").count("\n")
    new_lines = (change.new_text or "").count("\n")
    status = "created" if change.old_text is None else "deleted" if change.new_text is None \
        else "modified"
    return {"path": change.path, "status": status, "lines_before": old_lines,
            "lines_after": new_lines}
