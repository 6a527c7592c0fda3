"""Serving each streamable-HTTP session the roots its client declares.

An HTTP server started without ``--workspace`` serves the current folder to a client that
declares no roots. A session whose client does declare them is asked for them
(``roots/list``) once it is initialized, and again on each
``notifications/roots/list_changed``; from then on that session's calls go to a kernel over
those folders, each root guarding its own paths, while other sessions keep theirs. Sessions
naming the same folders share one kernel, closed when the last of them ends. A tool call
waits, briefly, for its session's first roots answer, so it is never served from the wrong
folder; ``initialize`` and ``tools/list`` never wait.

Any client that reaches the server may declare roots, so only folders inside the one the
server was started in are served (start it in the folder holding the projects); a root
outside is left out, with a warning in the log.

A session's roots fail closed: when every root it declares lies outside, when the server
already serves as many folder sets as it may (``SARI_HTTP_MAX_WORKSPACES``, default 8; each
is an index and its build), or when they cannot be opened, the session is served no
workspace at all — never the server's own folder, which holds every other client's
projects — and each of its tool calls is refused with ``NO_WORKSPACE`` saying why, until
its roots change.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types

from sari_core.server.catalog import ToolCatalog
from sari_core.server.connections import (
    CATALOG_KEY,
    NOTE_KEY,
    REFUSAL_KEY,
    STATE_KEY,
    sdk_connection,
)
from sari_core.server.roots import (
    FIRST_ROOTS_WAIT_SECONDS,
    HTTP_ROOTS_WAITS,
    ask_declared_roots,
    client_has_roots,
    handshake_era,
    listen_for_roots,
)

if TYPE_CHECKING:
    from sari_core.kernel import Kernel
    from sari_core.server.app import SariServer

log = logging.getLogger(__name__)

MAX_WORKSPACES_VARIABLE = "SARI_HTTP_MAX_WORKSPACES"
DEFAULT_MAX_WORKSPACES = 8
_SETTLED_KEY = "sari.roots_settled"
_FOLDERS_KEY = "sari.roots_folders"
_ENDED_KEY = "sari.roots_session_ended"
# What the session's first answer says when its roots are not (all) served. No absolute path
# of the server's: the client knows its own roots.
OUTSIDE_NOTE = ("Some of your roots are not served: they lie outside the folder this Sari server "
                "was started in (the operator's choice).")
# Why a session is served no workspace: the message and hint of its calls' refusal.
ALL_OUTSIDE = ("None of your roots is served: each lies outside the folder this Sari server "
               "was started in (the operator's choice), so this session has no workspace.",
               "Declare a root inside the server's folder, or ask the operator to serve yours.")
NONE_LOCAL = ("None of your roots is served: none names an existing local folder, so this "
              "session has no workspace.",
              "Declare file:// roots of folders inside the server's folder.")
TABLE_FULL = ("Your roots are not served: this Sari server already serves as many folder "
              "sets as it may, so this session has no workspace.",
              "Try again once another session ends (notifications/roots/list_changed), or ask "
              "the operator to raise SARI_HTTP_MAX_WORKSPACES.")
NOT_OPENED = ("Your roots are not served: the server could not open them, so this session "
              "has no workspace.",
              "Check that the folders exist and are readable, then send "
              "notifications/roots/list_changed.")


def max_workspaces() -> int:
    raw = os.environ.get(MAX_WORKSPACES_VARIABLE, "").strip()
    try:
        value = int(raw) if raw else DEFAULT_MAX_WORKSPACES
    except ValueError:
        log.warning("%s=%r is not an integer; using %d", MAX_WORKSPACES_VARIABLE, raw,
                    DEFAULT_MAX_WORKSPACES)
        return DEFAULT_MAX_WORKSPACES
    return max(value, 0)


@dataclass
class _Shared:
    """One kernel over one set of folders, and how many sessions it serves."""

    catalog: ToolCatalog
    sessions: int = 0


class SessionRoots:
    """Keeps each HTTP session of ``server`` on its client's roots (``fallback`` otherwise).

    :param open_kernel: builds a kernel over folders (its index building in the background).
    :param limit: at most this many folder sets served besides the fallback.
    """

    def __init__(self, server: SariServer, open_kernel: Callable[[list[Path]], Kernel],
                 fallback: list[Path], limit: int | None = None) -> None:
        self.server = server
        self.open_kernel = open_kernel
        self.fallback = list(fallback)
        self.limit = max_workspaces() if limit is None else limit
        self._shared: dict[tuple[Path, ...], _Shared] = {}
        self._lock = anyio.Lock()

    def install(self) -> None:
        listen_for_roots(self.server, self._on_initialized, self._on_changed,
                         self.wait_for_first_roots)

    def served(self) -> dict[tuple[Path, ...], int]:
        """Each folder set served now (besides the fallback) and its session count."""
        return {folders: shared.sessions for folders, shared in self._shared.items()}

    async def wait_for_first_roots(self, ctx: Any) -> None:
        connection = sdk_connection(ctx)
        settled = connection.state.get(_SETTLED_KEY) if connection is not None else None
        if isinstance(settled, anyio.Event) and not settled.is_set():
            with anyio.move_on_after(FIRST_ROOTS_WAIT_SECONDS):
                await settled.wait()

    async def _on_initialized(self, ctx: Any, params: types.NotificationParams) -> None:
        connection = sdk_connection(ctx)
        if connection is None or not client_has_roots(ctx) or not handshake_era(ctx):
            return
        settled = anyio.Event()
        connection.state[_SETTLED_KEY] = settled
        # Whatever the session is served when it ends is released then (and its policy
        # session on that kernel ended).
        connection.exit_stack.push_async_callback(self._session_ended, connection)
        try:
            await self._follow(ctx, connection)
        finally:
            settled.set()

    async def _on_changed(self, ctx: Any, params: types.NotificationParams) -> None:
        connection = sdk_connection(ctx)
        if connection is not None and _SETTLED_KEY in connection.state:
            await self._follow(ctx, connection)

    async def _follow(self, ctx: Any, connection: Any) -> None:
        answer = await ask_declared_roots(ctx, HTTP_ROOTS_WAITS)
        if answer is None:
            return
        declared, named = answer
        within = self._within_bounds(declared)
        async with self._lock:
            if connection.state.get(_ENDED_KEY):
                return  # the client left while it was asked: nothing to serve it
            if named and not within:  # it named roots, and none is served
                await self._refuse(connection, ALL_OUTSIDE if declared else NONE_LOCAL)
                return
            if len(within) < len(declared):
                connection.state[NOTE_KEY] = OUTSIDE_NOTE
            folders = tuple(within) or tuple(self.fallback)  # declared none: the server's
            current = connection.state.get(_FOLDERS_KEY)
            if folders == (current or tuple(self.fallback)) \
                    and REFUSAL_KEY not in connection.state:
                return
            catalog = None
            if folders != tuple(self.fallback):
                catalog = await self._acquire(folders)
                if isinstance(catalog, tuple):
                    await self._refuse(connection, catalog)
                    return
            await self._release(connection)
            connection.state.pop(REFUSAL_KEY, None)
            if catalog is not None:
                connection.state[_FOLDERS_KEY] = folders
                connection.state[CATALOG_KEY] = catalog
            log.info("session served %s", ", ".join(map(str, folders)))

    async def _refuse(self, connection: Any, why: tuple[str, str]) -> None:
        """Serve the connection no workspace: its calls are refused with ``why``."""
        await self._release(connection)
        connection.state.pop(NOTE_KEY, None)
        connection.state[REFUSAL_KEY] = why
        log.warning("a session is served no workspace: %s", why[0])

    def _within_bounds(self, declared: list[Path]) -> list[Path]:
        """The declared folders inside the server's own (any client that reaches an HTTP
        server may declare roots: it gets no folder the operator did not start it over)."""
        kept = [folder for folder in declared
                if any(folder.is_relative_to(base) for base in self.fallback)]
        for folder in declared:
            if folder not in kept:
                log.warning("root %s is outside %s, the folder this server was started in; "
                            "not served", folder, ", ".join(map(str, self.fallback)))
        return kept

    async def _acquire(self, folders: tuple[Path, ...]) -> ToolCatalog | tuple[str, str]:
        """The catalog serving ``folders``, or why they are not served (a refusal)."""
        shared = self._shared.get(folders)
        if shared is None:
            if len(self._shared) >= self.limit:
                log.warning("a client's roots (%s) are not served: %d folder sets already are "
                            "(%s)", ", ".join(map(str, folders)), len(self._shared),
                            MAX_WORKSPACES_VARIABLE)
                return TABLE_FULL
            try:
                kernel = await anyio.to_thread.run_sync(self.open_kernel, list(folders))
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - refused, said why
                log.warning("could not open %s (%s)", ", ".join(map(str, folders)), exc)
                return NOT_OPENED
            shared = self._shared[folders] = _Shared(ToolCatalog(kernel))
        shared.sessions += 1
        return shared.catalog

    async def _release(self, connection: Any) -> None:
        """Take the connection off the kernel it was served by; close that kernel when no
        session is left on it."""
        folders: tuple[Path, ...] | None = connection.state.pop(_FOLDERS_KEY, None)
        connection.state.pop(CATALOG_KEY, None)
        shared = self._shared.get(folders) if folders is not None else None
        if folders is None or shared is None:
            return
        kernel = shared.catalog.kernel
        connection_id = connection.state.get(STATE_KEY)
        if isinstance(connection_id, str):
            await anyio.to_thread.run_sync(kernel.end_connection, connection_id)
        shared.sessions -= 1
        if shared.sessions <= 0:
            del self._shared[folders]
            log.info("no session is served %s any more; closing it",
                     ", ".join(map(str, folders)))
            await anyio.to_thread.run_sync(kernel.close)

    async def _session_ended(self, connection: Any) -> None:
        try:
            async with self._lock:
                connection.state[_ENDED_KEY] = True
                await self._release(connection)
        except Exception:  # a kernel's closing must not break the session's teardown
            log.exception("releasing a session's roots failed")

    def close(self) -> None:
        """Close every kernel still open (the server has stopped)."""
        for shared in self._shared.values():
            shared.catalog.kernel.close()
        self._shared.clear()
