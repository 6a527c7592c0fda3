"""The ``context_query`` tool: re-read past context instead of guessing.

Scope (``scope="auto"``): when the call's ``session_id`` has records (a chat session,
or calls on any machine, from any checkout), its frames and the executions linked to it
or to the calling session; otherwise the workspace — frames of chat sessions of this
project (Claude Code's included) and executions of this workspace. Never another
workspace's. This tool's own earlier calls are left out (each answer holds the last).

Other sessions' records (another client's arguments and responses) are reached only
as far as the operator's ``context_query_scope`` allows: ``session`` (the default)
narrows every scope to the calling session; ``workspace`` lets it reach this
workspace's other sessions; ``team`` also lets ``scope="team"`` reach every session in
the log (a shared PostgreSQL log: every machine's). The calling session is the same on
every machine: its records are found by its session id wherever they were written.
Items are redacted with the secret patterns (they were before they were written, too),
before any cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from sari_core import (
    ErrorCode,
    FoldedVerdict,
    NextCall,
    SariError,
    Session,
    ToolSpec,
    canonical_root,
    tool_response,
)
from sari_persistence import reads
from sari_persistence.answer_text import answer_text
from sari_persistence.records import bound_text
from sari_persistence.redaction import redact_value
from sari_persistence.schema import ExecutionLogUnavailable
from sari_persistence.search import Page, Query, Scope, search
from sari_persistence.settings import SECTION, PersistenceSettings
from sari_persistence.store import ExecutionStore

TOOL_NAME = "context_query"
MODEL_TEXT = "model_text"  # the text a model reads instead of the payload's JSON
UNAVAILABLE = "EXECUTION_LOG_UNAVAILABLE"
DESCRIPTION = (
    "Find what compaction removed, newest first. "
    'E.g. {"text":"parse_config","since":"2026-01-10T09:30Z"}'
)
# Listed as a string (a number in a string is Unix seconds too); a JSON number is accepted.
_TIME_SCHEMA = WithJsonSchema({"type": "string"})


def _unlisted_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class ContextQueryArgs(BaseModel):
    """Arguments of ``context_query``.

    Listed to the model on every turn: each listed field says in one short line what it
    takes, and the fields for programs (:data:`PROGRAM_FIELDS`) are accepted but not
    listed.
    """

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(None, min_length=1, description="Words to find.")
    role: Literal["user", "assistant", "tool"] | None = Field(None, description="Who said it.")
    tool: str | None = Field(None, description="Calls of this tool.")
    execution_id: str | None = None
    since: Annotated[str | float | None, _TIME_SCHEMA] = Field(
        None, description="Not before (ISO 8601).")
    until: Annotated[str | float | None, _TIME_SCHEMA] = Field(
        None, description="Not after (ISO 8601).")
    chat_session_id: str | None = None
    # Listed without its default (auto): the names say whose records each reaches.
    scope: Literal["auto", "session", "workspace", "team"] = Field(
        "auto", json_schema_extra=_unlisted_default,
        description="Whose records.")
    kind: Literal["both", "frames", "executions"] = "both"
    include_compacted: bool = True
    # clamped to context_query_max_results, never refused; listed without its default,
    # which costs tokens on every turn and which a model need not know
    limit: int = Field(10, ge=1, json_schema_extra=_unlisted_default,
                       description="Max results.")
    offset: int = Field(0, ge=0)
    session_id: str | None = None


# What a program passes to page or narrow a query; a model asks by text, role, tool, time
# and scope (a model must be able to find the team's records, so scope is listed).
# execution_id too: a model is shown no execution id (a response's text carries none), a
# program holds it from the structured response.
PROGRAM_FIELDS = frozenset({"chat_session_id", "kind", "include_compacted", "offset",
                            "execution_id"})


def parse_time(value: str | float | None, field: str) -> int | None:
    """ISO 8601 or Unix seconds -> Unix milliseconds."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value * 1000)
    text = value.strip()
    try:
        return int(float(text) * 1000)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SariError(ErrorCode.INVALID_ARGS, f"{field}={value!r} is not a time.",
                        f"Give {field} as ISO 8601 (2026-01-10T09:30:00Z) or Unix seconds.") \
            from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def _own_session(session: Session) -> Scope:
    chats = (session.session_id,) if session.session_id else ()
    return Scope(chat_session_ids=chats, session_keys=(session.key,), name="session")


def _scope(args: ContextQueryArgs, session: Session, store: ExecutionStore,
           reach: str) -> Scope:
    """What the call may see: what it asks for, narrowed to what the operator allows."""
    asks_other = args.scope in ("workspace", "team") or args.chat_session_id not in (
        None, session.session_id)
    if reach == "session" and asks_other:
        return _own_session(session)
    if args.chat_session_id:
        keys = (session.key,) if args.chat_session_id == session.session_id else ()
        return Scope(chat_session_ids=(args.chat_session_id,), session_keys=keys, name="session")
    if args.scope == "team" and reach == "team":
        return Scope(everything=True, name="team")
    recorded = False
    if session.session_id and args.scope == "auto" and reach != "session":
        with store.reading() as conn:
            recorded = reads.session_recorded(conn, session.session_id, TOOL_NAME)
    # A session id with records of its own (frames, or calls on any machine and checkout)
    # is that session's context: a resumed session finds what it read before.
    if args.scope == "session" or (args.scope == "auto" and recorded) or reach == "session":
        return _own_session(session)
    return Scope(project_root=canonical_root(session.roots[0]),
                 workspace_hash=session.workspace_id, name="workspace")


def _names_this_tool(tool: str) -> bool:
    return tool == TOOL_NAME or tool.endswith("__" + TOOL_NAME)


def _redacted(value: Any) -> Any:
    """``value`` with every string in it redacted (the JSON shape is kept)."""
    return redact_value(value)


def _frame_item(frame: reads.StoredFrame, cap: int) -> tuple[dict[str, Any], bool]:
    item = frame.to_json()
    content = _redacted(frame.content)
    item["content"] = bound_text(content, cap)
    cut = len(content) > cap
    if cut:
        item["content_truncated"] = True
    return item, cut


def _execution_item(execution: reads.StoredExecution, cap: int) -> tuple[dict[str, Any], bool]:
    item = execution.to_json()
    item["arguments"], item["response"] = _redacted(item["arguments"]), _redacted(item["response"])
    cut = False
    for key in ("arguments", "response"):
        text = json.dumps(item[key], sort_keys=True, ensure_ascii=False, default=str)
        if len(text) > cap:
            item[key] = bound_text(text, cap)
            item[f"{key}_truncated"] = True
            cut = True
    return item, cut


def _payload(page: Page, args: ContextQueryArgs, scope: Scope, limit: int,
             cap: int) -> tuple[dict[str, Any], bool, bool]:
    frames = [_frame_item(frame, cap) for frame in page.frames]
    executions = [_execution_item(execution, cap) for execution in page.executions]
    has_more = (args.offset + limit < page.total_frames
                or args.offset + limit < page.total_executions)
    scope_json: dict[str, Any] = {"name": scope.name}
    if scope.chat_session_ids is not None:
        scope_json["chat_session_ids"] = list(scope.chat_session_ids)
    if scope.project_root is not None:
        scope_json["project_root"] = scope.project_root
    payload = {
        "scope": scope_json,
        "frames": [item for item, _ in frames],
        "executions": [item for item, _ in executions],
        "total_frames": page.total_frames,
        "total_executions": page.total_executions,
        "offset": args.offset,
        "limit": limit,
        "has_more": has_more,
    }
    cut = any(c for _, c in frames) or any(c for _, c in executions)
    return payload, has_more, cut


def _log_health(store: ExecutionStore) -> dict[str, int]:
    """Records this server could not write, said with the answer (never silently)."""
    stats = store.stats
    lost = {"dropped_queue_full": stats.dropped_full, "failed": stats.failed,
            "lost_at_close": stats.lost, "kept_on_disk": stats.spilled}
    return {key: value for key, value in lost.items() if value}


def make_handler(store_of: Callable[[], ExecutionStore | None],
                 unavailable: Callable[[], str | None]) -> Callable[[BaseModel, Session],
                                                                     dict[str, Any]]:
    """The tool handler, reading the plugin's current store lazily."""

    def handle(arguments: BaseModel, session: Session) -> dict[str, Any]:
        args = ContextQueryArgs.model_validate(arguments.model_dump())
        store = store_of()
        if store is None:
            reason = unavailable() or "the execution log is not open"
            raise SariError(UNAVAILABLE, f"context_query cannot run: {reason}",
                            "Fix or move the execution log file (see `sari log sessions`), "
                            "then restart the server.")
        settings: PersistenceSettings = session.settings(SECTION)
        limit = min(args.limit, settings.context_query_max_results)
        # This tool's own earlier answers would match again, each holding the last: left
        # out unless asked for by name.
        hidden = () if args.tool and _names_this_tool(args.tool) else (TOOL_NAME,)
        query = Query(text=args.text, role=args.role, tool=args.tool,
                      execution_id=args.execution_id, hidden_tools=hidden,
                      since_ms=parse_time(args.since, "since"),
                      until_ms=parse_time(args.until, "until"),
                      include_compacted=args.include_compacted, limit=limit, offset=args.offset)
        store.flush()  # read your own writes: the scope and the results see every record
        try:
            scope = _scope(args, session, store, settings.query_reach)
            with store.reading() as conn:
                page = search(conn, query, scope, want_frames=args.kind != "executions",
                              want_executions=args.kind != "frames")
        except ExecutionLogUnavailable as exc:
            raise SariError(UNAVAILABLE, f"context_query cannot run now: {exc}",
                            "The execution log's database does not answer; this session's "
                            "records are kept and written when it does. Retry later.") from None
        payload, has_more, cut = _payload(page, args, scope, limit,
                                          settings.context_query_item_chars)
        health = _log_health(store)
        if health:
            payload["log_health"] = health
        payload[MODEL_TEXT] = answer_text(payload, settings.context_query_item_chars)
        folded = FoldedVerdict()
        if has_more:
            next_args = args.model_dump(exclude_none=True, exclude_defaults=True)
            next_args.update(offset=args.offset + limit, limit=limit)
            folded.next_calls.append(NextCall(tool=TOOL_NAME, arguments=next_args))
            folded.suggested_next_action = "context_query"
        target = args.execution_id or args.text
        response = tool_response(TOOL_NAME, target, payload, folded,
                                           session.metrics(), "")
        response["meta"]["truncated"] = has_more or cut
        return response

    return handle


def tool_spec(store_of: Callable[[], ExecutionStore | None],
              unavailable: Callable[[], str | None]) -> ToolSpec:
    return ToolSpec(name=TOOL_NAME, description=DESCRIPTION, input_model=ContextQueryArgs,
                    handler=make_handler(store_of, unavailable), unlisted=PROGRAM_FIELDS,
                    title="Query the execution log", read_only=True)
