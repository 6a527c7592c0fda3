"""Every open writer flushed when the process ends: at interpreter exit and on SIGTERM.

A server stopped by its client (SIGTERM, then SIGKILL a few seconds later) would
otherwise lose the records of its last linger.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import weakref
from typing import Any, Protocol


class _Closable(Protocol):
    def close(self, timeout: float = ..., *, from_signal: bool = ...) -> None: ...


log = logging.getLogger("sari_persistence.writer")

_OPEN_WRITERS: weakref.WeakSet[Any] = weakref.WeakSet()
_sigterm_installed = False


def track_writer(writer: _Closable) -> None:
    """Flush ``writer`` at exit until :func:`forget_writer` is called for it."""
    _OPEN_WRITERS.add(writer)


def forget_writer(writer: _Closable) -> None:
    _OPEN_WRITERS.discard(writer)


def close_all_writers(*, from_signal: bool = False) -> None:
    """Flush and stop every open writer (interpreter exit, SIGTERM)."""
    for writer in list(_OPEN_WRITERS):
        try:
            writer.close(from_signal=from_signal)
        except Exception:  # exit paths must not raise
            log.exception("closing the execution log writer failed")


atexit.register(close_all_writers)


def install_sigterm_flush() -> bool:
    """On SIGTERM flush every writer, then let the previous disposition act.

    Installed once, from the main thread only (a Python restriction). A previous
    Python handler is chained; the default disposition is re-raised so the
    process still terminates with SIGTERM.
    """
    global _sigterm_installed
    if _sigterm_installed or threading.current_thread() is not threading.main_thread():
        return _sigterm_installed
    if not hasattr(signal, "SIGTERM"):
        return False
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: Any) -> None:
        close_all_writers(from_signal=True)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_IGN:
            return
        else:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
    _sigterm_installed = True
    return True
