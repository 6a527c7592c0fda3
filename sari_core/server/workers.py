"""Kernel calls off the event loop: a bounded pool, a bounded queue, and "busy" beyond it.

The event loop answers ``ping``, ``initialize`` and every other client's requests; a
kernel call (SQLite, git, a regex over the workspace) runs on one of ``threads`` worker
threads instead. One connection may occupy at most ``per_connection`` workers at once
(half the pool by default), so a client sending calls by the dozen leaves workers for
the others; its further calls wait. At most ``queue`` calls wait in all: a call that
would wait beyond that is not started and is answered at once with ``BUSY`` and a retry
hint, rather than waiting behind work whose end nobody can promise. Each search bounds
its own time (see ``engine.search.work_budget``), so a worker is never held for long.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from sari_core.errors import ErrorCode
from sari_core.server.results import server_refusal

DEFAULT_THREADS = 16
DEFAULT_QUEUE = 64
RETRY_AFTER_SECONDS = 2

_Result = TypeVar("_Result")


class Busy(Exception):
    """The pool cannot take this call now; ``response`` is its BUSY answer."""

    def __init__(self, response: dict[str, Any]) -> None:
        super().__init__(response["error"]["message"])
        self.response = response


class WorkerPool:
    """At most ``threads`` calls at once, ``per_connection`` of one connection, ``queue``
    more waiting."""

    def __init__(self, threads: int = DEFAULT_THREADS, queue: int = DEFAULT_QUEUE,
                 per_connection: int | None = None) -> None:
        self.threads = threads
        self.queue = queue
        self.per_connection = per_connection or max(1, threads // 2)
        self._limiter: anyio.CapacityLimiter | None = None
        self._threads: anyio.CapacityLimiter | None = None
        self._shares: dict[str, anyio.CapacityLimiter] = {}
        self._users: Counter[str] = Counter()
        self.waiting = 0

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # made inside the event loop that uses it
            self._limiter = anyio.CapacityLimiter(self.threads)
            self._threads = anyio.CapacityLimiter(self.threads)
        return self._limiter

    async def run(self, tool: str, connection_id: str, work: Callable[..., _Result],
                  *args: Any) -> _Result:
        """``work(*args)`` on a worker thread, or :class:`Busy` at once when it would have to
        wait and ``queue`` calls wait already."""
        pool = self.limiter
        share = self._shares.get(connection_id)
        if share is None:
            share = self._shares[connection_id] = anyio.CapacityLimiter(self.per_connection)
        must_wait = pool.available_tokens == 0 or share.available_tokens == 0
        if must_wait and self.waiting >= self.queue:
            raise Busy(busy(tool, f"all {self.threads} workers are taken and {self.waiting} "
                                  "calls are waiting"))
        self._users[connection_id] += 1
        self.waiting += 1
        queued = True
        try:
            async with share, pool:
                self.waiting -= 1
                queued = False
                return await anyio.to_thread.run_sync(work, *args, limiter=self._threads)
        finally:
            if queued:
                self.waiting -= 1
            self._users[connection_id] -= 1
            if not self._users[connection_id]:
                del self._users[connection_id]
                self._shares.pop(connection_id, None)


def busy(tool: str, why: str) -> dict[str, Any]:
    """The BUSY answer: nothing was started, so the same call can simply be sent again."""
    response = server_refusal(
        {"tool": tool, "target": None}, ErrorCode.BUSY,
        f"the server is busy ({why}); {tool} was not started.",
        f"Send the same call again in about {RETRY_AFTER_SECONDS} seconds; nothing of it ran.")
    response["error"]["details"] = {"retry_after_seconds": RETRY_AFTER_SECONDS}
    return response
