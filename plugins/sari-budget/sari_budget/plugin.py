"""The sari-budget plugin: counts each session's reads and delivered lines, trims a
payload to the per-read caps, guides to search near the limit and refuses past it.

Hook placement: the limit check runs in ``on_read_enter`` (nothing is read once the
budget is spent); the trim runs ``trylast`` in ``on_read_exit`` so it has the last
word on size — policies that rewrite the payload (aggregation) see the engine's
full text first, and the budget counts what is actually delivered.

A read of the client's own tool (a ``Read`` a hook asks about: ``ctx.native``) is one the
client already allows, and runs whatever Sari answers: refusing it only costs the agent a
turn. So it is never refused by the session's limits. Its lines count against the
session's line budget (what the model is shown, shared with Sari's own reads), not its
reads against the read count; once the line budget is spent it is narrowed to
``min_match_window_lines`` lines (the part a search matched, else the lines it asked for
first), and the agent reads on with an offset where it needs more.
"""

from __future__ import annotations

from typing import Any

import sari_budget.guidance as guidance
from sari_budget.reason_codes import BUDGET_HARD_LIMIT, BUDGET_SOFT_LIMIT, REASON_CODES
from sari_budget.settings import SECTION, BudgetSettings
from sari_budget.trim import Trimmed, trim_payload
from sari_budget.usage import BudgetUsage, InFlight, usage_of
from sari_budget.window import AT_MATCH, window_at_match
from sari_core import (
    READ_TOOLS,
    CallContext,
    CallRecord,
    NextCall,
    Plugin,
    ReadCall,
    ReadResult,
    ReasonCode,
    ReasonCodeSpec,
    SearchCall,
    SearchResult,
    Session,
    SettingsSpec,
    StabilizationField,
    Verdict,
    hookimpl,
    normalize_path,
)

BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
SOFT = BUDGET_SOFT_LIMIT
HARD = BUDGET_HARD_LIMIT
DEGRADED = ReasonCode.PREVIEW_DEGRADED.value
REASON_RANK = 50


class BudgetPlugin(Plugin):
    """Read Budget Guard: per-session reads, lines and preview caps."""

    name = "budget"

    # --- registration -----------------------------------------------------------------

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=BudgetSettings)

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [*REASON_CODES, ReasonCodeSpec(
            code=AT_MATCH,
            description="A whole-file read longer than max_single_read_lines was served as "
                        "the part the session's search matched in that file: the matched "
                        "definition whole (with 10 lines either side, and the definitions "
                        "beside it that it calls or that call it), else the window around "
                        "the matched line; next_calls continues a cut definition, else reads "
                        "the file's outline.",
            severity="info",
            rank=REASON_RANK,
        )]

    @hookimpl
    def sari_register_stabilization_fields(self) -> list[StabilizationField]:
        # Every response says where the session's budget stands, first in the block.
        return [StabilizationField("budget_state", default="ok", placement="first",
                                   severity=("ok", "soft_limit", "hard_limit"))]

    @hookimpl
    def sari_collect_metrics(self, session: Session) -> dict[str, Any]:
        settings = _settings(session)
        usage = usage_of(session)
        with session.lock:
            return {
                "budget_reads_remaining": usage.reads_left(settings),
                "budget_lines_remaining": usage.lines_left(settings),
                "budget_native_reads": usage.native_reads,
            }

    # --- reads ------------------------------------------------------------------------

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session, ctx: CallContext
                      ) -> Verdict | None:
        settings = _settings(session)
        usage = usage_of(session)
        native = ctx.native is not None
        with session.lock:
            exhausted = None if native else usage.exhausted_by(settings)
            if exhausted is None and not native:
                usage.reads_reserved += 1
        if exhausted is not None:
            return _hard_block(call, usage, settings, exhausted)
        # Enter, exit and completion share it; exit sees the call after narrowing, so
        # whether the client named its lines is noted now.
        in_flight = InFlight(session, named_range=_names_range(call), native=native)
        ctx.scratch[self.name] = in_flight
        return window_at_match(call, session, settings, in_flight)

    @hookimpl(trylast=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session,
                     ctx: CallContext) -> Verdict | None:
        settings = _settings(session)
        usage = usage_of(session)
        in_flight: InFlight | None = ctx.scratch.get(self.name)
        with session.lock:
            lines_left = usage.lines_left(settings)
        named = in_flight is not None and in_flight.named_range
        native = in_flight is not None and in_flight.native
        read_cap = settings.max_range_read_lines if named else settings.max_single_read_lines
        # A native read past the line budget is narrowed, never cut to nothing.
        floor = settings.min_match_window_lines if native else 1
        line_cap = min(read_cap, max(lines_left, floor))
        char_cap = _char_cap(call, settings, named)
        payload_is_diff = result.diff is not None
        payload = result.diff if result.diff is not None else result.text
        requested_end = result.end_line
        trimmed = trim_payload(payload, line_cap, char_cap)
        if trimmed.was_cut:
            _apply_trim(result, call, trimmed, payload_is_diff, line_cap, char_cap)
        with session.lock:
            if in_flight is not None and in_flight.committed_lines is None:
                if not native:
                    usage.reads_reserved = max(0, usage.reads_reserved - 1)
                in_flight.committed_lines = trimmed.lines_kept
            if native:
                usage.native_reads += 1
            else:
                usage.reads_served += 1
            usage.lines_delivered += trimmed.lines_kept
            soft = usage.is_soft(settings)
            snapshot = BudgetUsage(usage.reads_served, usage.reads_reserved, usage.lines_delivered)
        return _exit_verdict(call, result, requested_end, trimmed, settings, snapshot, soft,
                             by_session=line_cap < read_cap, named=named,
                             spent=native and lines_left < floor)

    @hookimpl
    def on_call_complete(self, record: CallRecord, ctx: CallContext) -> None:
        in_flight: InFlight | None = ctx.scratch.pop(self.name, None)
        if in_flight is None or record.tool not in READ_TOOLS:
            return
        if not record.ok:  # refused after admission (another policy, the engine): no charge
            in_flight.release()

    # --- searches ---------------------------------------------------------------------

    @hookimpl
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> Verdict | None:
        """Searches carry the session's budget state, so the client sees it coming."""
        settings = _settings(session)
        usage = usage_of(session)
        with session.lock:
            for match in reversed(result.matches):  # the best match of each path wins
                if match.line is not None:
                    usage.match_lines[normalize_path(match.path, session.roots)
                                      or match.path] = (match.line,
                                                        max(match.line, match.end_line or 0))
            state = usage.state(settings)
            line = guidance.usage_line(usage, settings)
        if state == "ok":
            return None
        code = HARD if state == "hard_limit" else SOFT
        action = ("Reads are spent for this session: use search results (snippets) to answer."
                  if state == "hard_limit"
                  else f"Read budget nearly spent ({line}): read only what these results point at.")
        return Verdict.allow(code, suggested_next_action=action,
                             annotations={"budget_state": state})


def _settings(session: Session) -> BudgetSettings:
    settings: BudgetSettings = session.settings(SECTION)
    return settings


def _names_range(call: ReadCall) -> bool:
    """Did the call say which lines it wants (not: the whole file, or a symbol)?"""
    if call.mode == "file":
        return call.limit is not None
    return call.mode == "snippet" and call.end_line is not None


def _char_cap(call: ReadCall, settings: BudgetSettings, named: bool = False) -> int:
    """The setting for the kind of read, or the call's own smaller ``max_preview_chars``."""
    cap = settings.max_range_read_chars if named else settings.max_preview_chars
    if call.max_preview_chars is None:
        return cap
    return min(cap, call.max_preview_chars)


def _hard_block(call: ReadCall, usage: BudgetUsage, settings: BudgetSettings,
                exhausted: str) -> Verdict:
    search = guidance.search_call(call)
    return Verdict.block(
        HARD,
        message=guidance.hard_limit_message(exhausted, usage, settings),
        hint="Search results carry snippets with line numbers; a new session starts a new "
             "budget.",
        error_code=BUDGET_EXCEEDED,
        next_calls=(search,),
        suggested_next_action=guidance.hard_limit_action(search),
        annotations={"budget_state": "hard_limit"},
    )


def _apply_trim(result: ReadResult, call: ReadCall, trimmed: Trimmed, payload_is_diff: bool,
                line_cap: int, char_cap: int) -> None:
    """Rewrite the payload to the kept prefix and make the metadata say so."""
    if payload_is_diff:
        result.diff = trimmed.text
        result.text = trim_payload(result.text, line_cap, char_cap).text
    else:
        result.text = trimmed.text
    # Line numbers count payload lines (file lines, or diff lines for a diff). A lower
    # bound when another policy replaced lines by references: the text then has fewer
    # lines than it stands for, so a continuation may overlap what was sent, never skip.
    last_whole = result.start_line + trimmed.complete_lines - 1
    result.end_line = max(result.start_line - 1, min(result.end_line, last_whole))
    if result.location is not None and not payload_is_diff:
        result.location = result.location.model_copy(update={"end_line": result.end_line})
    # The engine's paging hint must follow the trim: the window began at ``offset``.
    result.extra["next_offset"] = call.skipped_lines + trimmed.complete_lines + 1
    result.truncated = True
    result.preview_degraded = True


def _exit_verdict(call: ReadCall, result: ReadResult, requested_end: int, trimmed: Trimmed,
                  settings: BudgetSettings, usage: BudgetUsage, soft: bool,
                  by_session: bool, named: bool = False, spent: bool = False
                  ) -> Verdict | None:
    codes: list[str] = []
    warnings: list[str] = []
    next_calls: list[NextCall] = []
    if trimmed.was_cut:
        codes.append(DEGRADED)
        if trimmed.cut_by == "chars":
            field = "max_range_read_chars" if named and call.max_preview_chars is None \
                else "max_preview_chars"
            reason = f"{field}={_char_cap(call, settings, named)}"
        elif spent:
            reason = (f"the session's {settings.max_total_read_lines} lines "
                      f"(max_total_read_lines) are spent")
            soft = True
        elif by_session:
            left = usage.lines_left(settings) + trimmed.lines_kept
            reason = f"{left} lines left in the session budget"
            soft = True
        else:
            reason = (f"max_range_read_lines={settings.max_range_read_lines}" if named
                      else f"max_single_read_lines={settings.max_single_read_lines}")
        warnings.append(guidance.trim_warning(trimmed.cut_by or "lines", trimmed.lines_kept,
                                              trimmed.lines_total, reason))
        last_whole = result.start_line + trimmed.complete_lines - 1
        follow = guidance.continuation(call, result, requested_end, last_whole)
        if follow is not None and usage.reads_left(settings) > 0:
            next_calls.append(follow)
    suggested = guidance.trim_action(next_calls[0] if next_calls else None) \
        if trimmed.was_cut else None
    state = None
    if soft:
        codes.append(SOFT)
        state = "soft_limit"
        suggested = guidance.soft_limit_action(usage, settings, guidance.search_call(call))
    if not codes:
        return None
    # The soft state is told once, in suggested_next_action (with what is left), rather
    # than as one more warning on every read from 80% on.
    return Verdict.warn(*codes, message=warnings[0] if warnings else suggested or "",
                        warnings=tuple(warnings),
                        next_calls=tuple(next_calls),
                        suggested_next_action=suggested, preview_degraded=trimmed.was_cut,
                        annotations={"budget_state": state} if state else None)

