"""``sari serve``: run the MCP server over stdio (default) or streamable HTTP.

Starts fast: ``initialize`` is answered while the plugins and the engine open on a thread,
and the workspace index is built in the background once the first search has been
answered from a scan of the tree; searches made before the index is complete say so in
``meta`` (``INDEX_BUILDING``).
"""

from __future__ import annotations

import argparse
import functools
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from sari_core.kernel.commands import CommandRegistry

if TYPE_CHECKING:
    from sari_core.kernel import Kernel
    from sari_core.server.app import SariServer

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# The index build starts at once: a call in the first seconds must find it building (and
# say so), and a read soon after a search needs its symbols. A search answered from the scan
# meanwhile still pauses the build while it runs, so the two do not share the CPU.
BUILD_DELAY_SECONDS = 0.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", "-w", action="append", metavar="PATH", default=[],
                        help="workspace root to serve (repeat for several; default: the "
                             "client's roots, per session over HTTP, else the current folder)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="stdio (default; one client, launched by it) or streamable HTTP "
                             "(many clients)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"HTTP bind address (default {DEFAULT_HOST}: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"HTTP port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--token", metavar="TOKEN",
                        help="HTTP: require 'Authorization: Bearer TOKEN' (also from "
                             "SARI_HTTP_TOKEN). A bind beyond loopback always requires one: "
                             "without it the token stored in Sari's state folder is used, or "
                             "one is generated, stored (0600) and printed once")
    parser.add_argument("--allow-host", action="append", metavar="NAME", default=[],
                        help="HTTP, bound beyond loopback: another host name clients use to "
                             "reach this server (Host and Origin must name the server)")


def workspace_roots(paths: list[str]) -> list[Path]:
    """Resolve ``--workspace`` values; every one must be an existing folder."""
    roots = [Path(path).expanduser().resolve() for path in paths] or [Path.cwd().resolve()]
    for root in roots:
        if not root.is_dir():
            raise SystemExit(f"sari serve: workspace {root} is not a folder")
    return roots


def open_kernel(roots: list[Path]) -> Kernel:
    """The engine over ``roots`` (index started in the background) inside a kernel.

    Imports stay inside the commands so that ``sari --help`` does not load the engine.
    """
    from sari_core.engine import Workspace
    from sari_core.engine.files.exclusions import ExcludeError, configured_excludes
    from sari_core.kernel import Kernel

    try:
        exclude = configured_excludes(roots[0])
    except ExcludeError as exc:
        raise SystemExit(f"sari serve: {exc}") from None
    engine = Workspace(roots, exclude=exclude)
    try:
        engine.start_background_index(delay=BUILD_DELAY_SECONDS)
        return Kernel(engine)
    except BaseException:
        engine.close()
        raise


def run(args: argparse.Namespace) -> int:
    from sari_core.server.logs import configure_logging

    log_file = configure_logging()
    roots = workspace_roots(args.workspace)
    if args.transport == "http":
        return _run_http(args, roots, log_file, follow_roots=not args.workspace)
    # Without --workspace a server follows its client's roots (the current folder until the
    # client names them, and for a client that has none); over HTTP, each session its own.
    return _run_stdio(roots, log_file, follow_roots=not args.workspace)


def _run_stdio(roots: list[Path], log_file: Path | None, follow_roots: bool = False) -> int:
    from sari_core.kernel.sessions import new_connection_id
    from sari_core.server.startup import BACKGROUND_SUFFIX, StartupClock

    clock = StartupClock()
    with clock.phase("mcp SDK import"):
        import mcp.server.lowlevel  # noqa: F401 - timed apart: most of a start-up
    with clock.phase("Sari server import"):
        from sari_core.server.app import SariServer
        from sari_core.server.kernel_loading import KernelLoading
        from sari_core.server.transports import serve_stdio
    # The plugins and the engine open on a thread while initialize is answered; tools/list
    # and tool calls wait for them (the index itself then builds in the background).
    def opened(seconds: float) -> None:
        clock.phases["plugins and engine" + BACKGROUND_SUFFIX] = seconds
        log.info("plugins and engine opened in %.0f ms (after initialize)", seconds * 1000)
        clock.report()  # again, with this phase

    loading = KernelLoading(functools.partial(open_kernel, roots), on_done=opened)
    connection_id = new_connection_id()
    log.info("serving %s over stdio (connection %s, log %s)",
             ", ".join(map(str, roots)), connection_id, log_file)
    server = SariServer(loading, stdio_connection_id=connection_id, inline_reads=True)
    try:
        if follow_roots:
            from sari_core.server.roots import RootsFollower

            RootsFollower(server, open_kernel, roots).install()
        log.info("start-up: %s", clock.describe())
        clock.report()
        anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        pass
    finally:
        _close_served(server, connection_id)
    return 0 if loading.error is None else 1


def _close_served(server: SariServer, connection_id: str) -> None:
    """End the connection on the kernel served last (roots may have replaced the first)."""
    from sari_core.server.kernel_loading import KernelUnavailable

    try:
        served = server.loading.result() if server.loading is not None else server.kernel
    except KernelUnavailable:
        return  # already reported when it failed
    served.end_connection(connection_id)
    served.close()


def _run_http(args: argparse.Namespace, roots: list[Path], log_file: Path | None,
              follow_roots: bool = False) -> int:
    from sari_core.server.app import SariServer
    from sari_core.server.http_guard import is_loopback, machine_names
    from sari_core.server.http_token import TokenError, server_token
    from sari_core.server.transports import bind_socket, serve_http

    try:
        sock = bind_socket(args.host, args.port)
    except OSError as exc:
        print(f"sari serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    loopback = is_loopback(sock.getsockname()[0])
    try:
        token = server_token(args.token, required=not loopback)
    except TokenError as exc:
        sock.close()
        print(f"sari serve: refusing to serve on {args.host}: {exc}", file=sys.stderr)
        return 2
    # Beyond loopback: this machine's names, those given, and the bind address itself (the
    # announced URL names it, and a client on this machine may copy it).
    names = frozenset() if loopback else machine_names() | {sock.getsockname()[0]} | {
        name.lower() for name in args.allow_host}
    if token is not None and token.generated:
        # Printed once, on stderr (stdout may be a log); later starts reuse the stored file.
        print(f"sari: HTTP bearer token (stored in {token.stored_at}; shown only now): "
              f"{token.value}", file=sys.stderr, flush=True)
    elif token is not None and token.stored_at is not None:
        print(f"sari: HTTP bearer token required; it is stored in {token.stored_at}",
              file=sys.stderr, flush=True)
    kernel = open_kernel(roots)

    def announce(url: str) -> None:
        # Scripts (and the tests) read this line to learn the port.
        print(f"sari: serving MCP over streamable HTTP at {url}", file=sys.stderr, flush=True)
        log.info("serving %s at %s (log %s)", ", ".join(map(str, roots)), url, log_file)

    server = SariServer(kernel)
    followed = None
    if follow_roots:
        from sari_core.server.session_roots import SessionRoots

        followed = SessionRoots(server, open_kernel, roots)
        followed.install()
    try:
        anyio.run(functools.partial(serve_http, server, sock, on_ready=announce,
                                    token=token.value if token else None,
                                    allowed_names=names))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        if followed is not None:
            followed.close()
        kernel.close()
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("serve", "Run the MCP server (stdio by default; --transport http for many "
                 "clients).", configure, run)
