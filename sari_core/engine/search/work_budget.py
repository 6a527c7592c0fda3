"""How much one call may work: a deadline and a budget of bytes scanned, checked in scan loops.

A search's cost grows with the workspace and with what the client asks for; neither is
the server's to choose. So every search runs under a :class:`WorkBudget`: each loop that
reads file texts calls :func:`spend` with the bytes it is about to scan and stops when it
answers False. What was found by then is the answer, with a note saying it is partial
and how to narrow the search, instead of a call that holds a worker (or the client) for
minutes.

The budget in force is a context variable, so a loop deep in the engine needs no extra
parameter: :func:`bounded` opens one for a call (or joins the one a caller opened, so a
call made of several searches shares one deadline), and without one :func:`spend` always
answers True.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

SEARCH_SECONDS = 5.0  # after this a search answers with what it found
SEARCH_SCAN_BYTES = 256 << 20  # file text one search may scan (a large monorepo, many times)


class WorkBudget:
    """A deadline (``seconds`` from now) and a number of bytes that may be scanned."""

    def __init__(self, seconds: float, scan_bytes: int) -> None:
        self.seconds = seconds
        self.scan_bytes = scan_bytes
        self.deadline = time.monotonic() + seconds
        self.scanned = 0
        self.items = 0  # files (or rows) looked at
        self.stopped: str | None = None  # why the work stopped, once it has
        self.bounds: list[str] = []  # what a bound left uncounted, said with the answer

    def spend(self, scanned: int = 0) -> bool:
        """Count one item of ``scanned`` bytes about to be looked at; False once the work
        must stop (and from then on)."""
        if self.stopped is not None:
            return False
        if time.monotonic() >= self.deadline:
            self.stopped = f"its {self.seconds:g}-second deadline"
        elif self.scanned + scanned > self.scan_bytes:
            self.stopped = f"its budget of {self.scan_bytes >> 20} MiB of text scanned"
        else:
            self.scanned += scanned
            self.items += 1
            return True
        return False

    def note(self, what: str = "search") -> str | None:
        """One line for the result when the work stopped early, else None."""
        if self.stopped is None:
            return None
        return (f"Partial {what}: it stopped at {self.stopped}, after {self.items:,} files; "
                "the matches and the total are what it found by then. Narrow it with "
                "path_glob or a longer literal part in the query.")


_Text = TypeVar("_Text", str, bytes)
_CURRENT: ContextVar[WorkBudget | None] = ContextVar("sari_work_budget", default=None)


@contextmanager
def bounded(seconds: float = SEARCH_SECONDS, scan_bytes: int = SEARCH_SCAN_BYTES
            ) -> Iterator[WorkBudget]:
    """The budget in force inside the block: the caller's when one is open, else a new one."""
    outer = _CURRENT.get()
    if outer is not None:
        yield outer
        return
    budget = WorkBudget(seconds, scan_bytes)
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


@contextmanager
def paused() -> Iterator[None]:
    """Inside, the deadline of the budget in force moves on with the clock: work the index
    owed before it could answer (a parse it deferred) is not the search's to pay for."""
    budget = _CURRENT.get()
    started = time.monotonic()
    try:
        yield
    finally:
        if budget is not None:
            budget.deadline += time.monotonic() - started


def remaining() -> float | None:
    """Seconds left before the deadline of the budget in force (None when none is): the
    timeout of a subprocess doing the scan."""
    budget = _CURRENT.get()
    return None if budget is None else max(0.0, budget.deadline - time.monotonic())


def stop(reason: str) -> None:
    """Mark the budget in force stopped (a subprocess ran out of time, say)."""
    budget = _CURRENT.get()
    if budget is not None and budget.stopped is None:
        budget.stopped = reason


def say(sentence: str) -> None:
    """Have the answer of the call in progress say ``sentence`` (a count a bound cut short)."""
    budget = _CURRENT.get()
    if budget is not None and sentence not in budget.bounds:
        budget.bounds.append(sentence)


def spend(scanned: int = 0) -> bool:
    """:meth:`WorkBudget.spend` on the budget in force; True when none is."""
    budget = _CURRENT.get()
    return True if budget is None else budget.spend(scanned)


def within(texts: Iterable[tuple[int, _Text]]) -> Iterator[tuple[int, _Text]]:
    """``(id, text)`` pairs, each spent on the budget in force, until it says stop."""
    for file_id, text in texts:
        if not spend(len(text)):
            return
        yield file_id, text
