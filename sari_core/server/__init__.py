"""The MCP server: tool catalog, connection ids, results, transports and logging.

``SariServer(kernel)`` wraps a kernel in the SDK's lowlevel server;
:mod:`sari_core.server.transports` runs it over stdio or streamable HTTP.
"""

from __future__ import annotations

from sari_core.server.app import SariServer

__all__ = ["SariServer"]
