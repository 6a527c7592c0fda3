"""Recording off the call's thread: calls queue their telemetry, one daemon thread emits it.

Building spans and recording metrics costs tens of microseconds in the SDK; a call only
pays for queueing. The queue is bounded: if the thread falls behind, telemetry is
dropped (and counted) rather than memory growing or calls waiting.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

_STOP = object()


class RecordingThread:
    """Runs every submitted ``function(*args)``, in order, on one daemon thread.

    Exceptions are logged, never propagated.

    :param maxsize: submissions waiting at most; more are dropped.
    """

    def __init__(self, maxsize: int) -> None:
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=maxsize)
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="sari-otel", daemon=True)
        self._thread.start()

    def submit(self, function: Callable[..., None], *args: Any) -> None:
        try:
            self._queue.put_nowait((function, args))
        except queue.Full:
            self.dropped += 1
            if self.dropped == 1:
                log.warning("sari-otel: the recording thread fell behind; dropping telemetry")

    def flush(self) -> None:
        """Block until everything submitted so far has been emitted."""
        self._queue.join()

    def close(self) -> None:
        """Emit what is queued, then stop the thread."""
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                function, args = item
                function(*args)
            except Exception:  # noqa: BLE001 - telemetry must never take the server down
                log.warning("sari-otel: recording failed", exc_info=True)
            finally:
                self._queue.task_done()
