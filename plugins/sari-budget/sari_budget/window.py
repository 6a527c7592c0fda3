"""The part of a long file a whole-file read is served as, when the session's search matched
something in it: the matched definition whole, with the definitions beside it that it calls
or that call it, else the window around the matched line.

The agent that asks for a whole file after searching wants what the search found, not the
file's first lines (mostly imports); a definition cut in two, or a helper one read away,
costs it a turn that reads the whole conversation again.
"""

from __future__ import annotations

import sari_budget.guidance as guidance
from sari_budget.neighbours import Definition, definition_at, related
from sari_budget.settings import BudgetSettings
from sari_budget.usage import InFlight, usage_of
from sari_core import NextCall, ReadCall, Session, Verdict, normalize_path

AT_MATCH = "BUDGET_WINDOW_AT_MATCH"
DEFINITION_MARGIN = 10  # lines shown either side of a matched definition
# Lines of other code a neighbour may bring into the window with it: one further off is
# worth a read of its own, not a window padded with whatever lies in between.
NEIGHBOUR_GAP = 10


def window_at_match(call: ReadCall, session: Session, settings: BudgetSettings,
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
    total = session.file_lines(call.target)
    if total is None or total <= cap:
        return None  # the whole file fits: nothing will be cut
    line, end = match
    if end == line:  # a line the outline begins a definition at: that definition
        found = definition_at(session, call.target, line)
        end = found.last if found is not None else end
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
        follow = {"offset": last + 1,
                  "limit": min(settings.max_range_read_lines, end + DEFINITION_MARGIN - last)}
        what += f", its first {last - first + 1} lines"
        top = NextCall(tool="read", arguments={"mode": "file", "target": call.target,
                                               **follow, **guidance.carried(call)})
    else:  # the rest of the file: its map, to read what is needed from it
        top = NextCall(tool="read", arguments={"mode": "outline", "target": call.target,
                                               **guidance.carried(call)})
    message = f"Shown: {what}."  # the read's header gives the file's length
    return Verdict.narrow(AT_MATCH, to={"offset": first, "limit": last - first + 1},
                          message=message, warnings=(message,), next_calls=(top,))


def _with_neighbours(session: Session, target: str, line: int, end: int, first: int,
                     last: int, cap: int) -> tuple[int, int, list[Definition]]:
    """Widen the window first..last over the same file's definitions that the matched one
    calls or that call it, nearest first, while it stays within ``cap`` lines and each
    brings at most ``NEIGHBOUR_GAP`` lines of other code with it."""
    if last - first + 1 >= cap:
        return first, last, []
    joined: list[Definition] = []
    for definition in related(session, target, line, end, cap):
        if max(definition.first - last, first - definition.last) - 1 > NEIGHBOUR_GAP:
            continue
        wider = (min(first, definition.first), max(last, definition.last))
        if wider[1] - wider[0] + 1 <= cap:
            first, last = wider
            joined.append(definition)
    return first, last, sorted(joined, key=lambda d: d.first)
