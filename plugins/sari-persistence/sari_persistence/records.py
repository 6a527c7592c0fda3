"""What the writer thread stores, and how payloads are bounded before they are.

Records are small frozen values handed to the writer; the expensive part
(serialising a response, cutting long strings) happens on the writer thread,
never on the call's path. Timestamps are integer Unix milliseconds throughout.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from sari_persistence.redaction import redact, redact_value

TRUNCATION_MARK = "…[+{n} chars]"
_MIN_STRING_CAP = 64


def now_ms() -> int:
    return int(time.time() * 1000)


def bound_text(text: str, cap: int) -> str:
    """``text`` cut to at most about ``cap`` characters, marked with how much was cut."""
    if len(text) <= cap:
        return text
    cut = len(text) - cap
    return text[:cap] + TRUNCATION_MARK.format(n=cut)


def _bound_strings(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        return bound_text(value, cap)
    if isinstance(value, dict):
        return {str(k): _bound_strings(v, cap) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_bound_strings(v, cap) for v in value]
    return value


def bounded_json(value: Any, cap: int) -> str:
    """JSON text of ``value`` of at most about ``cap`` characters, still valid JSON.

    Long strings inside are cut first (so the structure survives); if that is not
    enough, the JSON text itself is kept as a cut string under ``_truncated_json``.
    """
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    if len(text) <= cap:
        return text
    string_cap = max(_MIN_STRING_CAP, cap // 4)
    text = json.dumps(_bound_strings(value, string_cap), sort_keys=True, default=str,
                      ensure_ascii=False)
    if len(text) <= cap:
        return text
    return json.dumps({"_truncated_json": bound_text(text, max(_MIN_STRING_CAP, cap - 64))},
                      ensure_ascii=False)


RESPONSE_LIST_ITEMS = 20


def compact_response(response: dict[str, Any], text_chars: int) -> dict[str, Any]:
    """The response as the log keeps it: payload text and lists cut, everything else whole.

    The client already got the full payload and the file is in the workspace; the log
    keeps the outcome (ok, error, meta, reason codes) and a preview. Only the top level
    is looked at, so this stays cheap on the writer thread.
    """
    out: dict[str, Any] = {}
    for key, value in response.items():
        if isinstance(value, str) and len(value) > text_chars:
            value = bound_text(value, text_chars)
        elif isinstance(value, list) and len(value) > RESPONSE_LIST_ITEMS:
            value = [*value[:RESPONSE_LIST_ITEMS],
                     f"…[+{len(value) - RESPONSE_LIST_ITEMS} items]"]
        out[key] = value
    return out


def workspace_of(session_key: str) -> str | None:
    """``ws:<hash>:...`` -> ``<hash>``."""
    parts = session_key.split(":", 2)
    return parts[1] if len(parts) >= 2 and parts[0] == "ws" else None


class ExecutionRecord(NamedTuple):
    """One tool call, as the kernel reported it (``record`` is a CallRecord-like object).

    A named tuple: it is built on the call's path, where every microsecond counts.
    """

    record: Any
    session_id: str | None
    source: str = "sari"


@dataclass(frozen=True)
class ExecutionRow:
    """An execution already in row form (ingested from a client transcript)."""

    id: str
    session_key: str
    session_id: str | None
    workspace_hash: str | None
    tool: str
    arguments: Any
    ok: bool
    target: str | None
    error_code: str | None
    reason_codes: tuple[str, ...]
    duration_ms: float
    timestamp: int
    response: Any
    source: str


@dataclass(frozen=True)
class MetricsRecord:
    """The latest metrics snapshot of a session (opt-in sqlite backend)."""

    session_key: str
    ok: bool
    snapshot: dict[str, Any]
    timestamp: int


@dataclass(frozen=True)
class ChatSessionRecord:
    session_id: str
    created_at: int
    project_root: str | None = None
    llm_provider: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class FrameRecord:
    """A chat frame; its ``sequence_index`` is assigned by the writer, in queue order."""

    session_id: str
    role: str
    content: str
    tool_name: str | None = None
    execution_id: str | None = None
    timestamp: int = 0
    source_key: str | None = None


def execution_row(item: ExecutionRecord | ExecutionRow, cap: int,
                  text_chars: int = 1000, machine: str | None = None) -> tuple[Any, ...]:
    """The ``executions`` row of a record, every stored text redacted, payloads bounded to
    ``cap``: the one way an execution reaches the SQLite file, PostgreSQL or the spool.

    Secrets are redacted before anything is cut (a cut could leave part of one that no
    pattern matches any more), in every field a call's text can reach: the arguments, the
    target (a search's is its query), and the whole response (its echoed query, error
    message and warnings included).

    :param text_chars: how much of a response's payload text (read text, diff) is kept.
    :param machine: where the record came from.
    """
    if isinstance(item, ExecutionRow):
        fields = (item.id, item.session_key, item.session_id, item.workspace_hash, item.tool,
                  item.arguments, item.ok, item.target, item.error_code, item.reason_codes,
                  item.duration_ms, item.timestamp, item.response, item.source)
    else:
        record = item.record
        fields = (record.execution_id, record.session_key, item.session_id,
                  workspace_of(record.session_key), record.tool, record.arguments,
                  record.ok, record.target, record.error_code, record.reason_codes,
                  record.duration_ms, int(record.timestamp * 1000), record.response,
                  item.source)
    (execution_id, session_key, session_id, workspace, tool, arguments, ok, target,
     error_code, reason_codes, duration_ms, timestamp, response, source) = fields
    if target is not None and not isinstance(target, str):
        target = str(target)
    response = redact_value(response)
    if isinstance(response, dict):
        response = compact_response(response, text_chars)
    return (execution_id, session_key, session_id, workspace, tool,
            bounded_json(redact_value(arguments), cap), int(bool(ok)),
            None if target is None else redact(target), error_code,
            json.dumps(list(reason_codes)), float(duration_ms), timestamp,
            bounded_json(response, cap), source, machine)


EXECUTION_COLUMNS = ("id", "session_key", "session_id", "workspace_hash", "tool", "arguments",
                     "ok", "target", "error_code", "reason_codes", "duration_ms", "timestamp",
                     "response", "source", "machine")

METRIC_COLUMNS = ("reads_count", "reads_lines_total", "reads_chars_total", "search_count",
                  "read_after_search_ratio", "avg_read_span", "max_read_span",
                  "preview_degraded_count")


def stored_frame(frame: FrameRecord) -> FrameRecord:
    """``frame`` as it is stored (in the database or the spool): its content redacted."""
    content = redact(frame.content)
    return frame if content == frame.content else replace(frame, content=content)
