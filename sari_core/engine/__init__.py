"""The workspace engine: roots and path safety, the index, search, reads and writes.

:class:`Workspace` is the facade the kernel uses (``sari_core.engine_protocol.Engine``).
It is imported on first use, so a symbol worker process that imports
:mod:`sari_core.engine.symbols` does not load the rest of the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.engine.workspace import Workspace

__all__ = ["Workspace"]


def __getattr__(name: str) -> Any:
    if name == "Workspace":
        from sari_core.engine.workspace import Workspace

        return Workspace
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
