"""What the budget tells the client: messages, and ready-to-run next calls."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from sari_budget.settings import BudgetSettings
from sari_budget.usage import BudgetUsage
from sari_core import NextCall, ReadCall, ReadResult

REF_ARGUMENTS = ("candidate_id", "bundle_id", "session_id")


def carried(call: ReadCall) -> dict[str, Any]:
    """Refs and session of the original call, so the follow-up passes the same gates."""
    return {key: getattr(call, key) for key in REF_ARGUMENTS if getattr(call, key)}


def search_call(call: ReadCall) -> NextCall:
    """A search that narrows the scope of ``call``: the symbol, or the file's own symbols."""
    if call.mode == "symbol":
        arguments: dict[str, Any] = {"query": call.target, "kind": "symbol"}
    else:
        stem = PurePosixPath(call.target.replace("\\", "/")).stem or call.target
        arguments = {"query": stem, "kind": "symbol"}
    if call.session_id:
        arguments["session_id"] = call.session_id
    return NextCall(tool="search", arguments=arguments)


def continuation(call: ReadCall, result: ReadResult, end: int, last_line: int) -> NextCall | None:
    """The read that asks for what a trim left out of ``call``.

    It asks for the rest of the original request, not a window: if the rest is still
    over a cap it is trimmed again and carries its own continuation, so following
    next_calls delivers every line exactly once.

    :param end: the last line the read covered before the trim (file lines; diff lines
        for a diff preview).
    :param last_line: the last line delivered whole.
    """
    if last_line < result.start_line or end <= last_line:
        return None  # nothing whole fitted (paging would repeat the cut), or nothing is left
    if call.mode in ("file", "diff_preview"):
        # Both number their payload from the top of the file (of the diff): offset is the
        # absolute number of the first line to show.
        arguments: dict[str, Any] = {"mode": call.mode, "target": call.target,
                                     "offset": last_line + 1}
        if call.limit is not None:
            arguments["limit"] = end - last_line
        if call.against:
            arguments["against"] = call.against
    else:
        # A snippet continues as a snippet; a symbol's body as a snippet of its file.
        target = call.target if call.mode == "snippet" else result.path
        arguments = {"mode": "snippet", "target": target, "start_line": last_line + 1,
                     "end_line": end}
    return NextCall(tool="read", arguments={**arguments, **carried(call)})


def usage_line(usage: BudgetUsage, settings: BudgetSettings) -> str:
    return (f"{usage.reads_served}/{settings.max_reads_per_session} reads, "
            f"{usage.lines_delivered}/{settings.max_total_read_lines} lines used")


def hard_limit_message(exhausted: str, usage: BudgetUsage, settings: BudgetSettings) -> str:
    spent = (f"all {settings.max_reads_per_session} reads of this session are used"
             if exhausted == "reads"
             else f"all {settings.max_total_read_lines} lines of this session are delivered")
    return f"The read budget of this session is spent: {spent}; search results still show lines."


def _call_text(call: NextCall) -> str:
    arguments = ", ".join(f"{key}={value!r}" for key, value in call.arguments.items()
                          if key != "session_id")
    return f"{call.tool}({arguments})"


def hard_limit_action(search: NextCall) -> str:
    return (f"Reads are spent for this session: search for what you still need, e.g. "
            f"{_call_text(search)}; search matches carry the lines they found.")


def trim_action(follow: NextCall | None) -> str:
    if follow is None:
        return "Search to narrow scope: the payload was cut to the preview cap."
    return (f"Read the rest with {_call_text(follow)} (next_calls), or search to narrow scope "
            "first.")


def soft_limit_action(usage: BudgetUsage, settings: BudgetSettings, search: NextCall) -> str:
    left_reads = max(0, settings.max_reads_per_session - usage.reads_served)
    left_lines = max(0, settings.max_total_read_lines - usage.lines_delivered)
    query = search.arguments["query"]
    return (f"Read budget nearly spent: search to narrow scope before reading more (e.g. "
            f"search query={query!r}); {left_reads} reads and {left_lines} lines are left in "
            "this session's budget.")


def trim_warning(cut_by: str, kept: int, total: int, cap_reason: str) -> str:
    unit = "lines" if cut_by == "lines" else "characters"
    return f"Trimmed to {kept} of {total} lines by the read budget ({unit} cap: {cap_reason})."
