"""The kernel: the hook specs, the plugin manager, and the pipeline every call runs through.

It knows no plugin's vocabulary. The pieces, one job each:

- :mod:`~sari_core.kernel.pipeline`: :class:`Kernel`, the entry points the server, the CLI
  and library users call, each running one call through the hooks around the engine;
- :mod:`~sari_core.kernel.hookspecs`: every hook the kernel calls, one docstring each;
- :mod:`~sari_core.kernel.manager`, :mod:`~sari_core.kernel.dispatch`,
  :mod:`~sari_core.kernel.loading`, :mod:`~sari_core.kernel.registrations`,
  :mod:`~sari_core.kernel.trace`: finding, loading and calling plugins;
- :mod:`~sari_core.kernel.verdicts`, :mod:`~sari_core.kernel.reasons`: what a policy
  decides, and the vocabulary it decides in;
- :mod:`~sari_core.kernel.sessions`, :mod:`~sari_core.kernel.calls`,
  :mod:`~sari_core.kernel.context`: the state a call runs in;
- :mod:`~sari_core.kernel.settings`: plugin settings sections;
- :mod:`~sari_core.kernel.builtin`: the kernel's own behaviour, written as default plugins.

Plugins import what they need from :mod:`sari_core` itself, not from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.kernel.pipeline import Kernel

__all__ = ["Kernel"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: the command line's registry (kernel.commands) and the server's
    # first reply must not wait for the pipeline's imports.
    if name != "Kernel":
        raise AttributeError(f"module 'sari_core.kernel' has no attribute {name!r}")
    from sari_core.kernel.pipeline import Kernel

    globals()["Kernel"] = Kernel
    return Kernel
