"""What one session has spent of its read budget, and the in-flight read of a thread."""

from __future__ import annotations

from dataclasses import dataclass, field

from sari_budget.settings import BudgetSettings
from sari_core import Session

NAMESPACE = "budget"


@dataclass
class BudgetUsage:
    """Counters of one session (guarded by the session's lock).

    :ivar reads_served: reads that delivered a payload.
    :ivar reads_reserved: reads admitted by ``on_read_enter`` and not finished yet;
        they count against the read limit so concurrent reads cannot overshoot it.
    :ivar lines_delivered: lines of payload delivered (after every policy's rewrite),
        by Sari's own reads and the client's own (native) ones.
    :ivar native_reads: reads of the client's own tools served: they spend lines, not
        the read count.
    :ivar match_lines: path -> first and last line of the best match the session's
        searches found in that path (a definition's whole range, else its one line), so a
        capped whole-file read shows that part.
    """

    reads_served: int = 0
    reads_reserved: int = 0
    lines_delivered: int = 0
    native_reads: int = 0
    match_lines: dict[str, tuple[int, int]] = field(default_factory=dict)

    def exhausted_by(self, settings: BudgetSettings) -> str | None:
        """Which session limit is spent (``"reads"`` or ``"lines"``), or None."""
        if self.reads_served + self.reads_reserved >= settings.max_reads_per_session:
            return "reads"
        if self.lines_delivered >= settings.max_total_read_lines:
            return "lines"
        return None

    def lines_left(self, settings: BudgetSettings) -> int:
        return max(0, settings.max_total_read_lines - self.lines_delivered)

    def reads_left(self, settings: BudgetSettings) -> int:
        return max(0, settings.max_reads_per_session - self.reads_served - self.reads_reserved)

    def is_soft(self, settings: BudgetSettings) -> bool:
        """From ``soft_limit_ratio`` of either session limit on."""
        ratio = settings.soft_limit_ratio
        return (self.reads_served >= ratio * settings.max_reads_per_session
                or self.lines_delivered >= ratio * settings.max_total_read_lines)

    def state(self, settings: BudgetSettings) -> str:
        if self.exhausted_by(settings) is not None:
            return "hard_limit"
        return "soft_limit" if self.is_soft(settings) else "ok"


def usage_of(session: Session) -> BudgetUsage:
    return session.namespace(NAMESPACE, BudgetUsage)


@dataclass
class InFlight:
    """The read being served, kept in its call's ``ctx.scratch`` from enter to completion.

    :ivar committed_lines: lines counted at exit, or None while only reserved.
    :ivar named_range: the client's call named its lines (a limit, an end_line), before
        any policy narrowed it.
    :ivar native: a read of the client's own tool (it reserves no read of the count).
    """

    session: Session
    committed_lines: int | None = None
    named_range: bool = False
    native: bool = False

    def release(self) -> None:
        """Undo this read's effect on the budget (it was refused or never finished)."""
        usage = usage_of(self.session)
        with self.session.lock:
            if self.committed_lines is None:
                if not self.native:
                    usage.reads_reserved = max(0, usage.reads_reserved - 1)
                return
            if self.native:
                usage.native_reads = max(0, usage.native_reads - 1)
            else:
                usage.reads_served = max(0, usage.reads_served - 1)
            usage.lines_delivered = max(0, usage.lines_delivered - self.committed_lines)
