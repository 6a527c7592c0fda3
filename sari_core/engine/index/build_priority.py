"""The index build's lower CPU priority, kept off the threads it starts for others.

A background build runs below the calls answered meanwhile (a scan, a read): on Linux a
thread has its own nice value, and the symbol worker processes the build starts inherit it.
A thread (or process) also inherits its creator's nice value, and the file watcher's thread
must not: every call waits for the watcher's marker event, so a starved watcher would slow
every call. The build's work therefore runs on a thread of its own, lowered, while the
thread that waits for it keeps the normal priority and starts the watcher.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

BUILD_NICENESS = 10

T = TypeVar("T")


def run_lowered(work: Callable[[], T]) -> T:
    """``work()`` on a thread of lower priority (where threads have their own); waits for it
    and returns its value or raises its exception."""
    if not sys.platform.startswith("linux"):  # the niceness would apply to the whole process
        return work()
    outcome: dict[str, object] = {}

    def lowered() -> None:
        with contextlib.suppress(OSError, AttributeError):
            # below the caller's own nice value (a server run under ``nice`` is already
            # lowered), and at most 19, the lowest there is
            me = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, me,
                           min(os.getpriority(os.PRIO_PROCESS, me) + BUILD_NICENESS, 19))
        try:
            outcome["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - raised again in the waiting thread
            outcome["error"] = exc

    thread = threading.Thread(target=lowered, name=f"{threading.current_thread().name}-work",
                              daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def run_here(work: Callable[[], T]) -> T:
    """``work()`` on this thread, at its priority."""
    return work()
