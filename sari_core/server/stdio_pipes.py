"""stdio on the event loop: the MCP wire without a thread hop per message.

The SDK's stdio transport reads and writes through worker threads
(``anyio.wrap_file``): a line read, a write and a flush per message, each a hop
to a thread and back. On a busy machine those hops cost more than serving a
``read``. When stdin and stdout are pipes (the way every client launches a
server), asyncio's pipe transports do the same job on the event loop; this
module hands them to the SDK's ``stdio_server`` as its explicit streams.

As the SDK does, the real descriptors are moved aside while serving: fd 0 then
reads the null device and fd 1 points at stderr, so a plugin that reads stdin
or prints cannot corrupt the protocol. Anything else (Windows, a regular file on
stdin) uses the SDK's own transport.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import stat
import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from sari_core.server.wire_screen import screen

log = logging.getLogger(__name__)

DEFAULT_LINE_LIMIT = 64 * 1024 * 1024
_FLUSH_SECONDS = 5.0


def _is_stream(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def pipes_available() -> bool:
    return os.name == "posix" and _is_stream(0) and _is_stream(1)


class _Lines:
    """Incoming lines, as the SDK's reader iterates them (``async for line in stdin``).

    A line the SDK would drop without an answer is answered here with a JSON-RPC error
    (see :mod:`sari_core.server.wire_screen`) and not passed on.
    """

    def __init__(self, reader: asyncio.StreamReader, limit: int, writer: _Writer) -> None:
        self._reader = reader
        self._limit = limit
        self._writer = writer

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self._reader.readline()
            except ValueError:
                # asyncio dropped the oversized part; its tail arrives as a line that does
                # not parse and is dropped too. Well below this limit the server answers
                # REQUEST_TOO_LARGE itself.
                log.error("a request line over %d bytes was dropped", self._limit)
                continue
            if not line:
                raise StopAsyncIteration
            text = line.decode("utf-8", errors="replace")
            reply = screen(text)
            if reply is None:
                return text
            log.warning("answered a malformed stdio message with a JSON-RPC error")
            await self._writer.write(json.dumps(reply, separators=(",", ":")) + "\n")
            await self._writer.flush()


class _Writer:
    """Outgoing lines (``await stdout.write(...)``, ``await stdout.flush()``)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@asynccontextmanager
async def serve_streams(line_limit: int = DEFAULT_LINE_LIMIT
                        ) -> AsyncGenerator[tuple[Any, Any], None]:
    """The (read, write) streams for ``Server.run`` over this process's stdin/stdout."""
    if not pipes_available():
        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=line_limit)
    # closefd=False: the transports close their file objects when the client closes
    # stdin; the duplicates must outlive that to be moved back onto fd 0 and 1.
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader),
        os.fdopen(wire_in, "rb", buffering=0, closefd=False))
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0, closefd=False))
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    wire_writer = _Writer(writer)
    stops_on_sigterm = _end_input_on_sigterm(loop, reader)
    try:
        # The SDK only iterates stdin and awaits write/flush on stdout: duck types suffice
        # where its signature names anyio's file wrapper.
        async with stdio_server(
            stdin=_Lines(reader, line_limit, wire_writer),  # pyright: ignore[reportArgumentType]
            stdout=wire_writer,  # pyright: ignore[reportArgumentType]
        ) as streams:
            yield streams
    finally:
        if stops_on_sigterm:
            loop.remove_signal_handler(signal.SIGTERM)
        read_transport.close()
        # Whatever is still buffered for the client goes out before the pipe closes
        # (bounded: a client that stopped reading does not hold the exit).
        with anyio.move_on_after(_FLUSH_SECONDS, shield=True):
            await _close_writer(writer)
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


def _end_input_on_sigterm(loop: asyncio.AbstractEventLoop,
                          reader: asyncio.StreamReader) -> bool:
    """On SIGTERM, end the input as a client closing stdin would.

    The server then winds down the way it does on a normal disconnect: replies still
    buffered are written, sessions end, plugins and logs are flushed, the exit code is 0.
    """
    try:
        loop.add_signal_handler(signal.SIGTERM, _stop_reading, reader)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
        return False
    return True


def _stop_reading(reader: asyncio.StreamReader) -> None:
    log.info("SIGTERM: finishing like a client disconnect")
    reader.feed_eof()


async def _close_writer(writer: asyncio.StreamWriter) -> None:
    transport = writer.transport
    while not transport.is_closing() and transport.get_write_buffer_size() > 0:
        await asyncio.sleep(0.01)
    transport.close()
