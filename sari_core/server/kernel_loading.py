"""Opening the kernel on a thread while the server already answers ``initialize``.

Importing the plugins and opening the engine is most of what ``sari serve`` adds to the
MCP SDK's own start-up, and clients give a server only a few seconds to answer
``initialize``; the handshake needs neither. So a stdio server answers it at once and
opens the kernel meanwhile; ``tools/list`` and tool calls wait for it (the tool list
depends on the installed plugins). A kernel that cannot open (a plugin that fails to
import, a bad setting) is not lost on the thread: the message goes to stderr and the log
at once, and every request that needs the kernel is answered with it.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

if TYPE_CHECKING:
    from sari_core.kernel import Kernel

log = logging.getLogger(__name__)


class KernelUnavailable(RuntimeError):
    """The kernel could not be opened; the message says why and what to do."""


class KernelLoading:
    """A kernel being opened by ``open_kernel`` on a thread of its own (started at once)."""

    def __init__(self, open_kernel: Callable[[], Kernel],
                 on_done: Callable[[float], None] | None = None) -> None:
        """:param on_done: called on the thread with the seconds it took (opened or not)."""
        self._open_kernel = open_kernel
        self._on_done = on_done
        self._done = threading.Event()
        self._kernel: Kernel | None = None
        self.error: str | None = None
        self._thread = threading.Thread(target=self._open, name="sari-kernel", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        started = time.perf_counter()
        try:
            self._kernel = self._open_kernel()
        except BaseException as exc:  # noqa: BLE001 - SystemExit included: reported, not lost
            self.error = _describe(exc)
            log.error("sari serve: the tools are unavailable: %s", self.error,
                      exc_info=not isinstance(exc, SystemExit))
            print(f"sari serve: the tools are unavailable: {self.error}", file=sys.stderr,
                  flush=True)
        finally:
            if self._on_done is not None:
                self._on_done(time.perf_counter() - started)
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def result(self, timeout: float | None = None) -> Kernel:
        """The kernel, once open (blocking); :class:`KernelUnavailable` when it failed."""
        if not self._done.wait(timeout):
            raise TimeoutError("the kernel is still opening")
        if self._kernel is None:
            raise KernelUnavailable(self.error or "the kernel did not open")
        return self._kernel

    async def wait(self) -> Kernel:
        """:meth:`result` without blocking the event loop."""
        if not self._done.is_set():
            await anyio.to_thread.run_sync(self._done.wait)
        return self.result()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):  # open_kernel's refusals carry their message as the code
        text = str(exc.code) if exc.code not in (None, 0) else "the kernel did not open"
        return text.removeprefix("sari serve: ")
    return f"{type(exc).__name__}: {exc}"
