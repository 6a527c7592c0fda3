"""Serving the folders a client declares as its roots (``roots/list``).

A stdio server started without ``--workspace`` serves the current folder until its client
says otherwise: once the client is initialized, a client that declares the ``roots``
capability is asked for its roots, and again on each ``notifications/roots/list_changed``.
When the folders change, a kernel over them replaces the current one (each root keeps its
own path guard, as with several ``--workspace``); a client without roots, or whose roots
name no local folder, keeps the current folder. A tool call waits, briefly, for the first
answer, so it never reads the wrong folder; ``initialize`` and ``tools/list`` never wait.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import anyio
import anyio.to_thread
import mcp_types as types

from sari_core.server.kernel_loading import KernelUnavailable

if TYPE_CHECKING:
    from sari_core.kernel import Kernel
    from sari_core.server.app import SariServer

log = logging.getLogger(__name__)

# How long a tool call waits for the client's first roots answer (and the kernel over them)
# before it is served from the folder already open.
FIRST_ROOTS_WAIT_SECONDS = 15.0
# How long the client may take to answer roots/list; one that never does keeps the folder.
ROOTS_ANSWER_SECONDS = 5.0
# Over HTTP the request goes on the client's event stream (GET), which it opens only after
# sending notifications/initialized: a request sent before then is lost, so it is repeated.
HTTP_ROOTS_WAITS = (1.0, 2.0, 4.0)


def folders_of(roots: list[types.Root]) -> list[Path]:
    """The existing local folders among ``roots`` (``file://`` URIs), in the client's order."""
    folders: list[Path] = []
    for root in roots:
        parsed = urlparse(str(root.uri))
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            log.info("root %s is not a local folder; not served", root.uri)
            continue
        folder = Path(unquote(parsed.path)).resolve()
        if not folder.is_dir():
            log.info("root %s is not an existing folder; not served", root.uri)
            continue
        if folder not in folders:
            folders.append(folder)
    return folders


class RootsFollower:
    """Keeps ``server`` serving its client's roots; ``fallback`` when there are none.

    :param open_kernel: builds a kernel over folders (its index building in the background).
    """

    def __init__(self, server: SariServer, open_kernel: Callable[[list[Path]], Kernel],
                 fallback: list[Path]) -> None:
        self.server = server
        self.open_kernel = open_kernel
        self.fallback = fallback
        self.settled = anyio.Event()
        self._lock = anyio.Lock()

    def install(self) -> None:
        listen_for_roots(self.server, self._on_initialized, self._on_changed,
                         self.wait_for_first_roots)

    async def wait_for_first_roots(self, ctx: Any) -> None:
        """Hold a tool call until the client's roots are served (a client that declares
        none, or speaks the era without a handshake, is never held)."""
        if client_has_roots(ctx) and handshake_era(ctx) and not self.settled.is_set():
            with anyio.move_on_after(FIRST_ROOTS_WAIT_SECONDS):
                await self.settled.wait()

    async def _on_initialized(self, ctx: Any, params: types.NotificationParams) -> None:
        try:
            if client_has_roots(ctx):
                await self._follow(ctx)
            else:
                log.info("the client declares no roots; serving %s",
                         ", ".join(map(str, self._current())))
        finally:
            self.settled.set()

    async def _on_changed(self, ctx: Any, params: types.NotificationParams) -> None:
        if client_has_roots(ctx):
            await self._follow(ctx)

    async def _follow(self, ctx: Any) -> None:
        declared = await ask_roots(ctx)
        if declared is None:
            log.info("serving %s", ", ".join(map(str, self._current())))
            return
        folders = declared or self.fallback
        try:
            await self.server.kernel_ready()  # the first kernel may still be opening
        except KernelUnavailable:
            return  # reported when it failed; a kernel over other folders would fail alike
        async with self._lock:
            if folders == self._current():
                return
            log.info("serving the client's roots: %s", ", ".join(map(str, folders)))
            kernel = await anyio.to_thread.run_sync(self.open_kernel, folders)
            old = self.server.use_kernel(kernel)
            await anyio.to_thread.run_sync(old.close)

    def _current(self) -> list[Path]:
        """The folders served now: the fallback's while the first kernel is still opening
        (``initialized`` can arrive before it is)."""
        kernel = getattr(self.server, "kernel", None)
        return list(kernel.roots) if kernel is not None else list(self.fallback)


def listen_for_roots(server: SariServer, on_initialized: Callable[..., Awaitable[None]],
                     on_changed: Callable[..., Awaitable[None]],
                     before_call: Callable[[Any], Awaitable[None]]) -> None:
    """Have ``server`` ask for roots once a client is initialized and again when they
    change, and hold a tool call with ``before_call`` until the first answer is served."""
    lowlevel = server.lowlevel
    lowlevel.add_notification_handler("notifications/initialized", types.NotificationParams,
                                      on_initialized)
    lowlevel.add_notification_handler("notifications/roots/list_changed",
                                      types.NotificationParams, on_changed)
    server.before_call = before_call
    # A server can ask for roots only on a connection opened with the initialize
    # handshake (the 2026 era has no server-to-client requests): clients that probe
    # server/discover first (Claude Code does) are led to the handshake instead.
    server.require_handshake()


async def ask_roots(ctx: Any, waits: tuple[float, ...] = (ROOTS_ANSWER_SECONDS,)
                    ) -> list[Path] | None:
    """The local folders among the client's roots (``roots/list``); None when the client
    did not answer or answered with an error."""
    answer = await ask_declared_roots(ctx, waits)
    return None if answer is None else answer[0]


async def ask_declared_roots(ctx: Any, waits: tuple[float, ...] = (ROOTS_ANSWER_SECONDS,)
                             ) -> tuple[list[Path], int] | None:
    """The local folders among the client's roots, and how many roots it declared (some may
    name no local folder); None when the client did not answer or answered with an error.

    :param waits: how long each attempt waits for the answer; a request that went
        unanswered is sent again (over HTTP a request sent before the client opened its
        event stream is lost).
    """
    for attempt, wait in enumerate(waits, start=1):
        log.debug("asking the client for its roots (attempt %d)", attempt)
        try:
            with warnings.catch_warnings():  # the SDK marks roots deprecated for a future era
                warnings.simplefilter("ignore")
                with anyio.fail_after(wait):
                    answer = await ctx.session.list_roots()
        except TimeoutError:
            continue
        except Exception as exc:  # noqa: BLE001 - a client that cannot answer keeps its folder
            log.warning("roots/list failed (%s: %s)", type(exc).__name__, exc)
            return None
        log.info("the client's roots: %s", ", ".join(str(root.uri) for root in answer.roots))
        return folders_of(list(answer.roots)), len(answer.roots)
    log.warning("roots/list was not answered in %.0f s", sum(waits))
    return None


def client_has_roots(ctx: Any) -> bool:
    params = getattr(ctx.session, "client_params", None)
    capabilities = getattr(params, "capabilities", None)
    return getattr(capabilities, "roots", None) is not None


def handshake_era(ctx: Any) -> bool:
    """Whether the connection was opened with ``initialize`` (protocol versions before the
    2026 era), the only kind a server may send requests on."""
    version = str(getattr(ctx, "protocol_version", None) or "")
    return bool(version) and version < "2026"
