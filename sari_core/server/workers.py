"""Kernel calls off the event loop: a bounded pool, a bounded queue, and "busy" beyond it.

The event loop answers ``ping``, ``initialize`` and every other client's requests; a
kernel call (SQLite, git, a regex over the workspace) runs on one of ``threads`` worker
threads instead. When every worker is taken, at most ``queue`` calls wait for one, and
one connection may have at most ``per_connection`` calls running or waiting: a call
beyond either bound is not started and is answered at once with ``BUSY`` and a retry
hint, rather than waiting behind work whose end nobody can promise. Each search bounds
its own time (see ``engine.work_budget``), so a worker is never held for long.
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
DEFAULT_PER_CONNECTION = 12
RETRY_AFTER_SECONDS = 2

_Result = TypeVar("_Result")


class Busy(Exception):
    """The pool cannot take this call now; ``response`` is its BUSY answer."""

    def __init__(self, response: dict[str, Any]) -> None:
        super().__init__(response["error"]["message"])
        self.response = response


class WorkerPool:
    """At most ``threads`` calls at once, ``queue`` more waiting, ``per_connection`` each."""

    def __init__(self, threads: int = DEFAULT_THREADS, queue: int = DEFAULT_QUEUE,
                 per_connection: int = DEFAULT_PER_CONNECTION) -> None:
        self.threads = threads
        self.queue = queue
        self.per_connection = per_connection
        self._limiter: anyio.CapacityLimiter | None = None
        self._in_flight: Counter[str] = Counter()

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # made inside the event loop that uses it
            self._limiter = anyio.CapacityLimiter(self.threads)
        return self._limiter

    async def run(self, tool: str, connection_id: str, work: Callable[..., _Result],
                  *args: Any) -> _Result:
        """``work(*args)`` on a worker thread, or :class:`Busy` at once when over a bound."""
        waiting = self.limiter.statistics().tasks_waiting
        if self._in_flight[connection_id] >= self.per_connection:
            raise Busy(busy(tool, f"this connection already has {self.per_connection} calls "
                                  "running or waiting"))
        if self.limiter.available_tokens == 0 and waiting >= self.queue:
            raise Busy(busy(tool, f"all {self.threads} workers are taken and {waiting} calls "
                                  "are waiting"))
        self._in_flight[connection_id] += 1
        try:
            return await anyio.to_thread.run_sync(work, *args, limiter=self.limiter)
        finally:
            self._in_flight[connection_id] -= 1
            if not self._in_flight[connection_id]:
                del self._in_flight[connection_id]


def busy(tool: str, why: str) -> dict[str, Any]:
    """The BUSY answer: nothing was started, so the same call can simply be sent again."""
    response = server_refusal(
        {"tool": tool, "target": None}, ErrorCode.BUSY,
        f"the server is busy ({why}); {tool} was not started.",
        f"Send the same call again in about {RETRY_AFTER_SECONDS} seconds; nothing of it ran.")
    response["error"]["details"] = {"retry_after_seconds": RETRY_AFTER_SECONDS}
    return response
