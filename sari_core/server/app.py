"""The MCP server: the SDK's lowlevel ``Server`` wired to one kernel.

The lowlevel server (not ``MCPServer``) is used because Sari needs what the
high-level decorator API cannot express: plugin tools with schemas taken from
their pydantic models, the contract object as structured content *and* text with
``isError`` on refusals, and a server-issued id per connection.

Kernel calls are synchronous (SQLite, git, language servers); each runs on a bounded
pool of worker threads (:mod:`sari_core.server.workers`) so one slow call never stalls
``ping``, ``initialize`` or the other connections, and a call beyond the pool's queue is
answered ``BUSY`` at once. A stdio server (one client) may serve its ``read`` calls on the
event loop instead (``inline_reads``): there the hop to a thread is pure cost. A search
always goes to the pool: its cost depends on the workspace and the query.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import mcp_types as types
import pydantic_core
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from sari_core import __version__
from sari_core.client_request import ClientRequest, client_request, current_client_request
from sari_core.errors import ErrorCode
from sari_core.kernel.identity import client_meta_session, model_identity
from sari_core.native.serving import HOOK_TOOL, hook_tool_text
from sari_core.native.sessions import bound_connection, bound_session
from sari_core.server.catalog import ToolCatalog
from sari_core.server.connections import (
    CATALOG_KEY,
    REFUSAL_KEY,
    ConnectionIds,
    add_connection_note,
    sdk_connection,
)
from sari_core.server.index_progress import (
    note_first_call_while_building,
    reporting_index_progress,
)
from sari_core.server.kernel_loading import KernelLoading, KernelUnavailable
from sari_core.server.results import (
    internal_error,
    request_too_large,
    server_refusal,
    to_call_result,
    unknown_tool,
)
from sari_core.server.wire_screen import has_lone_surrogate
from sari_core.server.workers import DEFAULT_QUEUE, DEFAULT_THREADS, Busy, WorkerPool

if TYPE_CHECKING:  # (the pipeline loads on the kernel's thread, after initialize)
    from sari_core.kernel import Kernel

log = logging.getLogger(__name__)

DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024
DEFAULT_WORKER_THREADS = DEFAULT_THREADS
# Served on the event loop by a stdio server with inline_reads: reads of a file or a range,
# whose work is bounded by the file's size. Search, symbol and outline reads (which may wait
# for the index) and diffs (git) go to a worker.
INLINE_READ_MODES = {"read": ("file", "snippet"), "read_file": (None,), "get_snippet": (None,)}

# No server instructions: Claude Code shows a server's instructions to its model on every turn,
# in a block of ~30 tokens of its own, and what they would say (search, then read what it
# found; a refused or cut call ends with the call to make next) each tool's description and
# each result's text already say where it applies.
INSTRUCTIONS: str | None = None


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    try:
        value = int(raw) if raw else default
    except ValueError:
        log.warning("%s=%r is not an integer; using %d", name, raw, default)
        return default
    return value if value > 0 else default


class SariServer:
    """One kernel served over MCP.

    :param kernel: the kernel every call goes through (owned by the caller), or one still
        being opened (:class:`KernelLoading`): ``initialize`` is answered meanwhile, while
        ``tools/list`` and tool calls wait for it (and answer its failure, if it fails).
    :param stdio_connection_id: pin one connection id for the whole server: a stdio
        process serves exactly one client. Leave None for a server shared by several
        connections (streamable HTTP, in-process tests).
    :param max_request_bytes: refuse tool arguments larger than this (JSON bytes).
    :param worker_threads: how many kernel calls may run at once (``SARI_SERVER_THREADS``).
    :param worker_queue: how many more may wait for a worker (``SARI_SERVER_QUEUE``);
        beyond that a call is answered ``BUSY`` at once.
    :param inline_reads: serve reads on the event loop instead of a worker thread. Only
        for a server with one client (stdio): its reads are short and hold the GIL
        anyway, so the hop to a thread and back is pure cost; searches, mutations and
        plugin tools, which may scan the workspace or wait on language servers or
        databases, still go to a worker thread. A server shared by many clients must
        leave it off.
    """

    def __init__(
        self,
        kernel: Kernel | KernelLoading,
        *,
        stdio_connection_id: str | None = None,
        max_request_bytes: int | None = None,
        worker_threads: int | None = None,
        worker_queue: int | None = None,
        inline_reads: bool = False,
    ) -> None:
        self._stdio_connection_id = stdio_connection_id
        self.loading = kernel if isinstance(kernel, KernelLoading) else None
        if self.loading is None:
            self._adopt(kernel)  # type: ignore[arg-type]
        self.max_request_bytes = max_request_bytes or _env_int(
            "SARI_MAX_REQUEST_BYTES", DEFAULT_MAX_REQUEST_BYTES)
        self.workers = WorkerPool(
            worker_threads or _env_int("SARI_SERVER_THREADS", DEFAULT_WORKER_THREADS),
            worker_queue if worker_queue is not None
            else _env_int("SARI_SERVER_QUEUE", DEFAULT_QUEUE))
        self.inline_reads = inline_reads
        self._told_index_building: set[str] = set()  # connections told the index is building
        # Awaited before each tool call (the first roots answer of the client, when followed).
        self.before_call: Callable[[Any], Awaitable[None]] | None = None
        # Whether a client must open with the initialize handshake (see require_handshake).
        self.handshake_required = False
        self.lowlevel: Server[Any] = Server(
            "sari",
            version=__version__,
            title="Sari",
            description="Search, read and edit a workspace through a policy layer.",
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            get_tool_input_schema=self._input_schema,
        )

    def _adopt(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.catalog = ToolCatalog(kernel)
        self.connections = ConnectionIds(kernel.end_connection, self._stdio_connection_id)

    async def kernel_ready(self) -> Kernel:
        """The served kernel, once open (:class:`KernelUnavailable` if it failed to)."""
        if self.loading is not None:
            kernel = await self.loading.wait()
            if self.loading is not None:  # the first waiter to wake adopts it
                self.loading = None
                self._adopt(kernel)
        return self.kernel

    def _input_schema(self, name: str) -> Any:
        return None if self.loading is not None else self.catalog.input_schema(name)

    def use_kernel(self, kernel: Kernel) -> Kernel:
        """Serve ``kernel`` from now on (the client's roots changed); return the one replaced,
        for the caller to close. The tool list stays what the installed plugins make it."""
        old = self.kernel
        self._adopt(kernel)
        return old

    def require_handshake(self) -> None:
        """Make auto-negotiating clients open handshake-era (stateful) connections.

        2026-era requests over HTTP are stateless: each would be its own connection
        and lose the policy session between calls. Declining ``server/discover`` makes
        clients fall back to ``initialize``, which opens an HTTP session
        (``Mcp-Session-Id``) that lives across calls. Clients pinned to the 2026 era
        are still served; they keep state by naming their session in each request's ``_meta``
        (``sari/session_id``). Over stdio the transport
        answers an opening probe itself (:mod:`sari_core.server.opening`).
        """
        self.handshake_required = True
        self.lowlevel.add_request_handler("server/discover", types.RequestParams,
                                          self._decline_discover)

    async def _decline_discover(self, ctx: ServerRequestContext[Any],
                                params: types.RequestParams) -> types.DiscoverResult:
        raise MCPError(code=types.METHOD_NOT_FOUND,
                       message="Sari keeps per-connection sessions over HTTP: open a session "
                               "with the initialize handshake.")

    async def _list_tools(self, ctx: ServerRequestContext[Any],
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        await self._require_kernel()
        return types.ListToolsResult(tools=self._catalog_for(ctx).tools(self._structured(ctx)))

    async def _call_tool(self, ctx: ServerRequestContext[Any],
                         params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        request = ClientRequest("tools/call", ctx.request_id, dict(ctx.meta or params.meta or {}),
                                getattr(ctx, "protocol_version", None))
        await self._require_kernel()
        if name == HOOK_TOOL:
            return await self._hook(ctx, dict(params.arguments or {}))
        try:
            if self.before_call is not None:
                await self.before_call(ctx)
            refusal = self._refusal_for(ctx, name)
            if refusal is not None:
                return to_call_result(refusal, self.catalog.text_format, self._structured(ctx),
                                      self._output_schema(name))
            catalog = self._catalog_for(ctx)
            with client_request(request):
                response = await self._serve(ctx, catalog, name, dict(params.arguments or {}))
            return to_call_result(response, catalog.text_format, self._structured(ctx),
                                  self._output_schema(name))
        except Exception as exc:  # the transport must outlive any failure of a call
            incident = uuid.uuid4().hex[:12]
            log.exception("tool %s failed (incident %s)", name, incident)
            return to_call_result(internal_error(name, exc, incident), self.catalog.text_format,
                                  self._structured(ctx), self._output_schema(name))

    async def _hook(self, ctx: ServerRequestContext[Any],
                    arguments: dict[str, Any]) -> types.CallToolResult:
        """A client's ``mcp_tool`` hook: its answer as the tool's text, never an error (an
        error would block the client's call under ``onFailure: block``)."""
        connection_id = self.connections.for_request(ctx)
        kernel = self._catalog_for(ctx).kernel
        try:
            text = await self.workers.run(HOOK_TOOL, connection_id, hook_tool_text, kernel,
                                          arguments, connection_id)
        except Busy:
            from sari_core.native.hook_client import offline_answer  # (rare: off the start)

            text = json.dumps(offline_answer(arguments))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def _require_kernel(self) -> None:
        try:
            await self.kernel_ready()
        except KernelUnavailable as exc:
            raise MCPError(code=types.INTERNAL_ERROR,
                           message=f"Sari's tools are unavailable: {exc}") from None

    def _catalog_for(self, ctx: ServerRequestContext[Any]) -> ToolCatalog:
        """The tools of the kernel serving this connection: its own (the roots its client
        declared over HTTP) or the server's."""
        connection = sdk_connection(ctx)
        own = connection.state.get(CATALOG_KEY) if connection is not None else None
        return own if isinstance(own, ToolCatalog) else self.catalog

    def _refusal_for(self, ctx: ServerRequestContext[Any], name: str) -> dict[str, Any] | None:
        """The refusal every call of a connection served no workspace gets, if it is one."""
        connection = sdk_connection(ctx)
        why = connection.state.get(REFUSAL_KEY) if connection is not None else None
        if not isinstance(why, tuple):
            return None
        return server_refusal({"tool": name, "target": None}, ErrorCode.NO_WORKSPACE, *why)

    def _output_schema(self, name: str) -> dict[str, Any] | None:
        entry = self.catalog.get(name)
        return entry.tool.output_schema if entry is not None else None

    def _structured(self, ctx: ServerRequestContext[Any]) -> bool:
        """Structured content for this connection's client (see ``structured_content``)."""
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        return self.catalog.options.structured_for(getattr(info, "name", None))

    async def _serve(self, ctx: ServerRequestContext[Any], catalog: ToolCatalog, name: str,
                     arguments: dict[str, Any]) -> dict[str, Any]:
        entry = catalog.get(name)
        if entry is None:
            log.info("unknown tool %r", name)
            return unknown_tool(name, catalog.names())
        if has_lone_surrogate(arguments):
            # Not Unicode: no tool could store, search or echo it (and JSON encoding fails).
            return server_refusal(
                {"tool": name, "target": None}, ErrorCode.INVALID_ARGS,
                f"the arguments of {name} hold a lone UTF-16 surrogate, which is not Unicode.",
                "Send valid Unicode: escape a character outside the BMP as a surrogate pair.")
        size = len(pydantic_core.to_json(arguments, fallback=str))
        if size > self.max_request_bytes:
            log.warning("tool %s: %d argument bytes refused (limit %d)", name, size,
                        self.max_request_bytes)
            return request_too_large(name, size, self.max_request_bytes)
        # A connection a client's hook spoke on is keyed by the client's session.
        transport_connection = self.connections.for_request(ctx)
        connection_id = bound_connection(transport_connection)
        # The session is the connection's, or the one the client program names in _meta
        # or by a hook on this connection; a session_id argument (the model writes
        # arguments) is only a scope inside it.
        meta = current_client_request()
        identity = model_identity(arguments, connection_id,
                                  client_session_id=client_meta_session(meta.meta if meta
                                                                        else None)
                                  or bound_session(transport_connection))
        started = time.perf_counter()
        async with reporting_index_progress(ctx, getattr(catalog.kernel, "engine", None)):
            if self.inline_reads and entry.read_only \
                    and arguments.get("mode") in INLINE_READ_MODES.get(name, ()):
                response = entry.invoke(arguments, identity)
            else:
                try:
                    response = await self.workers.run(name, connection_id, entry.invoke,
                                                      arguments, identity)
                except Busy as busy:
                    log.warning("tool %s answered BUSY: %s", name, busy)
                    return busy.response
        if not isinstance(response, dict) or "ok" not in response:
            raise TypeError(f"{name} returned {type(response).__name__}, not a response object")
        note_first_call_while_building(response, getattr(catalog.kernel, "engine", None),
                                       self._told_index_building, connection_id)
        add_connection_note(ctx, response)
        log.debug("tool %s ok=%s in %.1f ms (connection %s)", name, response["ok"],
                  (time.perf_counter() - started) * 1000.0, connection_id)
        return response
