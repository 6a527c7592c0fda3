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
import logging
import os
import stat
import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.stdio import stdio_server

log = logging.getLogger(__name__)

DEFAULT_LINE_LIMIT = 64 * 1024 * 1024


def _is_stream(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def pipes_available() -> bool:
    return os.name == "posix" and _is_stream(0) and _is_stream(1)


class _Lines:
    """Incoming lines, as the SDK's reader iterates them (``async for line in stdin``)."""

    def __init__(self, reader: asyncio.StreamReader, limit: int) -> None:
        self._reader = reader
        self._limit = limit

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
            return line.decode("utf-8", errors="replace")


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
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0))
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0))
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    try:
        # The SDK only iterates stdin and awaits write/flush on stdout: duck types suffice
        # where its signature names anyio's file wrapper.
        async with stdio_server(
            stdin=_Lines(reader, line_limit),  # pyright: ignore[reportArgumentType]
            stdout=_Writer(writer),  # pyright: ignore[reportArgumentType]
        ) as streams:
            yield streams
    finally:
        # Give the process its descriptors back before the transports close the duplicates.
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        read_transport.close()
        write_transport.close()
