"""The workspace engine: roots and path safety, the index, search, reads and writes.

:class:`Workspace` is the facade the kernel uses (``sari_core.engine_protocol.Engine``).
"""

from sari_core.engine.workspace import Workspace

__all__ = ["Workspace"]
