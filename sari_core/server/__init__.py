"""The MCP server: tool catalog, connection ids, results, transports and logging.

``SariServer(kernel)`` wraps a kernel in the SDK's lowlevel server;
:mod:`sari_core.server.transports` runs it over stdio or streamable HTTP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.server.app import SariServer

__all__ = ["SariServer"]


def __getattr__(name: str) -> Any:
    # Imported on first use: the SDK behind it is most of a server's start-up, and the
    # package's light modules (logs, startup) must not pay for it.
    if name == "SariServer":
        from sari_core.server.app import SariServer
        return SariServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
