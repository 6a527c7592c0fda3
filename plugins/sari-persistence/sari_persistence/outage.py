"""The execution log's database away and back: when it went, how long to wait, what is lost.

The writer thread keeps a batch while the database does not answer and retries it;
this object holds that state and says it in the log once per outage (not once per
retry), so a PostgreSQL restart reads as two lines, "away" and "back".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_persistence.writer import WriterStats

log = logging.getLogger("sari_persistence.writer")


class DatabaseOutage:
    """Whether the database is away, since when, and until when closing may wait for it.

    :param stats: the writer's counters (outages, lost and spilled records are counted here).
    :param queue_size: how many records may wait (named in the log line).
    :param describe: an error as it may be logged (a database URL's password removed).
    :param spill: keeps records the away database never took on disk; True when it did.
    """

    def __init__(self, stats: WriterStats, queue_size: int,
                 describe: Callable[[BaseException], str],
                 spill: Callable[[list[Any]], bool] | None) -> None:
        self._stats = stats
        self._queue_size = queue_size
        self._describe = describe
        self._spill = spill
        self._down_since: float | None = None
        self._drops_reported = False
        self.close_deadline: float | None = None

    @property
    def away(self) -> bool:
        return self._down_since is not None

    def began(self, exc: BaseException) -> None:
        """The database did not answer; logged once until it answers again."""
        if self._down_since is not None:
            return
        self._down_since = time.monotonic()
        self._stats.outages += 1
        log.error("execution log: the database does not answer (%s); tool calls are served and "
                  "up to %d records wait for it", self._describe(exc), self._queue_size)

    def report_drop(self) -> None:
        """A record was dropped because the queue is full; logged once per outage."""
        if self._drops_reported:
            return
        self._drops_reported = True
        log.error("execution log: %d records wait to be written (the database is away "
                  "or slow); new records are dropped and counted until they are",
                  self._queue_size)

    def wait(self, seconds: float) -> bool:
        """Sleep before the next attempt; False once closing has waited long enough."""
        deadline = self.close_deadline
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            seconds = min(seconds, left)
        time.sleep(seconds)
        return True

    def ended(self) -> None:
        """The database answered: say how long it was away and how many records were dropped."""
        if self._down_since is None:
            return
        away = time.monotonic() - self._down_since
        self._down_since = None
        self._drops_reported = False
        log.warning("execution log: the database answers again after %.1f s; the records kept "
                    "are being written (%d dropped so far because the queue was full)",
                    away, self._stats.dropped_full)

    def lost(self, batch: list[Any]) -> None:
        """Closing gave up on an away database: keep the batch on disk, or count it as lost."""
        if self._spill is not None:
            try:
                if self._spill(batch):
                    self._stats.spilled += len(batch)
                    log.warning("execution log: %d records the database did not take before the "
                                "server stopped are kept on disk for the next start",
                                len(batch))
                    return
            except Exception:  # noqa: BLE001 - then they are counted as lost, below
                log.exception("execution log: keeping records on disk failed")
        self._stats.lost += len(batch)
        log.error("execution log: %d records were not written: the database did not answer "
                  "before the server stopped (%d lost in all)", len(batch), self._stats.lost)
