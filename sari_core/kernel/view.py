"""What a plugin sees of the kernel: the narrow object the lifecycle hooks are handed.

``on_kernel_start``, ``on_kernel_shutdown`` and ``sari_register_analytics_sinks`` get a
:class:`KernelView`, never the kernel itself: a plugin reads the workspace, its settings
and the live sessions, and may watch hook calls, but cannot reach the plugin manager, the
session store or the pipeline, which stay the kernel's to change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pluggy

    from sari_core.engine_protocol import Engine
    from sari_core.kernel.dispatch import AfterCall, BeforeCall
    from sari_core.kernel.sessions import Session
    from sari_core.kernel.settings import SettingsStore


class ViewedKernel(Protocol):
    """What a view reads of the kernel (the pipeline's ``Kernel``, which builds the view:
    the view names no module above it)."""

    @property
    def roots(self) -> Sequence[Path]: ...

    @property
    def engine(self) -> Engine: ...

    @property
    def settings(self) -> SettingsStore: ...

    @property
    def workspace_hash(self) -> str: ...

    @property
    def pm(self) -> pluggy.PluginManager: ...

    def live_sessions(self) -> Iterator[Session]: ...



class KernelView:
    """The started kernel as a plugin may use it.

    :ivar roots: the workspace roots, in the engine's order.
    :ivar engine: the workspace engine (:class:`~sari_core.engine_protocol.Engine`; check an
        optional capability with ``isinstance`` against its protocol).
    :ivar settings: every plugin's validated settings; ``settings.get("<section>")``.
    :ivar workspace_hash: the stable id of the first root (names state files).
    """

    __slots__ = ("_kernel",)

    def __init__(self, kernel: ViewedKernel) -> None:
        self._kernel = kernel

    @property
    def roots(self) -> tuple[Path, ...]:
        return tuple(self._kernel.roots)

    @property
    def engine(self) -> Engine:
        return self._kernel.engine

    @property
    def settings(self) -> SettingsStore:
        return self._kernel.settings

    @property
    def workspace_hash(self) -> str:
        return self._kernel.workspace_hash

    def live_sessions(self) -> Iterator[Session]:
        """The sessions still open (a shutdown hook flushes what they hold)."""
        return self._kernel.live_sessions()

    def watch_hook_calls(self, before: BeforeCall, after: AfterCall
                         ) -> Callable[[], None]:
        """Be told of every hook call (pluggy's ``add_hookcall_monitoring``, same arguments).

        :return: a function that stops the watching.
        """
        return self._kernel.pm.add_hookcall_monitoring(before, after)
