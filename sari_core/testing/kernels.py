"""Kernels built for one test: exactly the plugins given, no analytics, closed afterwards."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sari_core.engine_protocol import Engine
from sari_core.kernel import Kernel

Settings = Mapping[str, Mapping[str, Any]]
"""Per-section setting overrides: ``{"budget": {"max_reads_per_session": 5}}``."""

KernelFactory = Callable[..., Kernel]
"""What a test folder's ``make_kernel`` fixture returns: builds a kernel per call."""


def build_kernel(engine: Engine | None = None, plugins: Sequence[object] = (), *,
                 settings: Settings | None = None, roots: Sequence[Path] = (),
                 builtins: bool = True) -> Kernel:
    """A kernel with exactly ``plugins``: never the installed entry points, no analytics.

    :param engine: the engine to serve from (a :class:`~sari_core.testing.MemoryEngine`,
        say); by default the real workspace engine over ``roots``.
    :param settings: setting overrides, validated as the workspace's would be.
    :param builtins: register the kernel's own default plugins (session metrics).
    """
    return Kernel(engine, roots=roots, plugins=list(plugins), load_entry_points=False,
                  builtins=builtins, settings=settings, analytics_sinks=[])


class Kernels:
    """Every kernel one test builds, closed together (the ``sari_kernels`` fixture)."""

    def __init__(self) -> None:
        self._built: list[Kernel] = []

    def build(self, engine: Engine | None = None, plugins: Sequence[object] = (),
              settings: Settings | None = None, *, roots: Sequence[Path] = (),
              builtins: bool = True) -> Kernel:
        """:func:`build_kernel`, closed when the test ends."""
        kernel = build_kernel(engine, plugins, settings=settings, roots=roots,
                              builtins=builtins)
        self._built.append(kernel)
        return kernel

    def close(self) -> None:
        built, self._built = self._built, []
        for kernel in built:
            kernel.close()
