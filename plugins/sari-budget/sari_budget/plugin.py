"""The sari-budget plugin: counts each session's reads and delivered lines, trims a
payload to the per-read caps, guides to search near the limit and refuses past it.

Hook placement: the limit check runs in ``on_read_enter`` (nothing is read once the
budget is spent); the trim runs ``trylast`` in ``on_read_exit`` so it has the last
word on size — policies that rewrite the payload (aggregation) see the engine's
full text first, and the budget counts what is actually delivered.
"""

from __future__ import annotations

from typing import Any

import sari_budget.guidance as guidance
from sari_budget.neighbours import Definition, related
from sari_budget.reason_codes import BUDGET_HARD_LIMIT, BUDGET_SOFT_LIMIT, REASON_CODES
from sari_budget.settings import SECTION, BudgetSettings
from sari_budget.trim import Trimmed, trim_payload
from sari_budget.usage import BudgetUsage, InFlight, usage_of
from sari_core.arguments import LEGACY_READ_TOOLS
from sari_core.context import CallContext
from sari_core.models import CallRecord, NextCall, ReadCall, ReadResult, SearchCall, SearchResult
from sari_core.plugin_manager import hookimpl
from sari_core.reasons import ReasonCode, ReasonCodeSpec
from sari_core.sessions import Session
from sari_core.settings import SettingsSpec
from sari_core.stabilization import StabilizationField
from sari_core.targets import normalize_path
from sari_core.verdicts import Verdict

BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
SOFT = BUDGET_SOFT_LIMIT
HARD = BUDGET_HARD_LIMIT
DEGRADED = ReasonCode.PREVIEW_DEGRADED.value
READ_TOOLS = frozenset({"read", *LEGACY_READ_TOOLS})
AT_MATCH = "BUDGET_WINDOW_AT_MATCH"
DEFINITION_MARGIN = 10  # lines shown either side of a matched definition
REASON_RANK = 50


class BudgetPlugin:
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
                        "the top of the file.",
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
            }

    # --- reads ------------------------------------------------------------------------

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session, ctx: CallContext
                      ) -> Verdict | None:
        settings = _settings(session)
        usage = usage_of(session)
        with session.lock:
            exhausted = usage.exhausted_by(settings)
            if exhausted is None:
                usage.reads_reserved += 1
        if exhausted is not None:
            return _hard_block(call, usage, settings, exhausted)
        # Enter, exit and completion share it; exit sees the call after narrowing, so
        # whether the client named its lines is noted now.
        in_flight = InFlight(session, named_range=_names_range(call))
        ctx.scratch[self.name] = in_flight
        return _window_at_match(call, session, settings, in_flight)

    @hookimpl(trylast=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session,
                     ctx: CallContext) -> Verdict | None:
        settings = _settings(session)
        usage = usage_of(session)
        in_flight: InFlight | None = ctx.scratch.get(self.name)
        with session.lock:
            lines_left = usage.lines_left(settings)
        named = in_flight is not None and in_flight.named_range
        read_cap = settings.max_range_read_lines if named else settings.max_single_read_lines
        line_cap = min(read_cap, max(lines_left, 1))
        char_cap = _char_cap(call, settings, named)
        payload_is_diff = result.diff is not None
        payload = result.diff if result.diff is not None else result.text
        requested_end = result.end_line
        trimmed = trim_payload(payload, line_cap, char_cap)
        if trimmed.was_cut:
            _apply_trim(result, call, trimmed, payload_is_diff, line_cap, char_cap)
        with session.lock:
            if in_flight is not None and in_flight.committed_lines is None:
                usage.reads_reserved = max(0, usage.reads_reserved - 1)
                in_flight.committed_lines = trimmed.lines_kept
            usage.reads_served += 1
            usage.lines_delivered += trimmed.lines_kept
            soft = usage.is_soft(settings)
            snapshot = BudgetUsage(usage.reads_served, usage.reads_reserved, usage.lines_delivered)
        return _exit_verdict(call, result, requested_end, trimmed, settings, snapshot, soft,
                             by_session=line_cap < read_cap, named=named)

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


def _window_at_match(call: ReadCall, session: Session, settings: BudgetSettings,
                     in_flight: InFlight) -> Verdict | None:
    """A whole-file read of a file longer than the cap, of which the session's search
    matched a part, is served as that part: the matched definition whole (with a few lines
    around it), or the cap's window around a matched line, not the file's first lines."""
    if call.mode != "file" or call.offset is not None or call.limit is not None:
        return None
    cap = settings.max_single_read_lines
    with session.lock:
        match = usage_of(session).match_lines.get(
            normalize_path(call.target, session.roots) or call.target)
    if match is None:
        return None
    total = _line_count(session, call)
    if total is None or total <= cap:
        return None  # the whole file fits: nothing will be cut
    line, end = match
    if end > line:  # a definition: all of it, and its decorators and comments above
        first = max(1, line - DEFINITION_MARGIN)
        # All of it in one read, up to the cap of a read that names its lines: these lines
        # were chosen (by the search), and a definition cut in two costs the agent a turn.
        whole = min(end + DEFINITION_MARGIN, first + settings.max_range_read_lines - 1)
        # A short definition comes with what follows it (the helpers it calls are often
        # defined next to it), up to min_match_window_lines in all.
        least = first + min(settings.min_match_window_lines, cap) - 1
        last = min(total, max(whole, least))
        in_flight.named_range = last - first + 1 > cap  # the exit trim keeps it whole
        what = f"the definition the search matched (lines {line}-{end})"
        first, last, joined = _with_neighbours(session, call.target, line, end, first, last,
                                               cap)
        if joined:
            what += " and, beside it, " + ", ".join(
                f"{d.name} ({d.first}-{d.last})" for d in joined) + ", which it calls or " \
                "which call it"
    else:
        margin = cap // 6  # some lines above the match: its signature, its comments
        first = max(1, min(line - margin, total - cap + 1))
        last = first + cap - 1
        what = f"the window around the search match at line {line}"
    if end > line and last < end:  # the definition is longer than one read: its next part
        follow = {"offset": last,
                  "limit": min(settings.max_range_read_lines, end + DEFINITION_MARGIN - last)}
        what += f", its first {last - first + 1} lines"
    else:  # the rest of the file starts at its top
        follow = {"offset": 0, "limit": cap}
    top = NextCall(tool="read", arguments={"mode": "file", "target": call.target, **follow,
                                           **guidance.carried(call)})
    message = f"Shown: {what}."  # the read's header gives the file's length
    return Verdict.narrow(AT_MATCH, to={"offset": first - 1, "limit": last - first + 1},
                          message=message, warnings=(message,), next_calls=(top,))


def _with_neighbours(session: Session, target: str, line: int, end: int, first: int,
                     last: int, cap: int) -> tuple[int, int, list[Definition]]:
    """Widen the window first..last over the same file's definitions that the matched one
    calls or that call it, nearest first, while it stays within ``cap`` lines."""
    if last - first + 1 >= cap:
        return first, last, []
    joined: list[Definition] = []
    for definition in related(session, target, line, end, cap):
        wider = (min(first, definition.first), max(last, definition.last))
        if wider[1] - wider[0] + 1 <= cap:
            first, last = wider
            joined.append(definition)
    return first, last, sorted(joined, key=lambda d: d.first)


def _line_count(session: Session, call: ReadCall) -> int | None:
    """The file's length, asked of the engine directly (no client read, no budget)."""
    probe = ReadCall(mode="file", target=call.target, limit=1, preview_mode="none")
    try:
        return session.probe_read(probe).total_lines
    except Exception:  # noqa: BLE001 - any failure means: no window, the trim applies
        return None


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
    result.extra["next_offset"] = (call.offset or 0) + trimmed.complete_lines
    result.truncated = True
    result.preview_degraded = True


def _exit_verdict(call: ReadCall, result: ReadResult, requested_end: int, trimmed: Trimmed,
                  settings: BudgetSettings, usage: BudgetUsage, soft: bool,
                  by_session: bool, named: bool = False) -> Verdict | None:
    codes: list[str] = []
    warnings: list[str] = []
    next_calls: list[NextCall] = []
    if trimmed.was_cut:
        codes.append(DEGRADED)
        if trimmed.cut_by == "chars":
            field = "max_range_read_chars" if named and call.max_preview_chars is None \
                else "max_preview_chars"
            reason = f"{field}={_char_cap(call, settings, named)}"
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

