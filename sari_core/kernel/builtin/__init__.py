"""The kernel's own behaviour, registered as plugins (as pytest, tox and datasette do)."""

from __future__ import annotations

from sari_core.kernel.builtin.metrics import SessionMetricsPlugin
from sari_core.kernel.manager import BUILTIN_PREFIX, SariPluginManager

BUILTIN_PLUGINS = {f"{BUILTIN_PREFIX}metrics": SessionMetricsPlugin}


def register_builtins(pm: SariPluginManager) -> None:
    for name, factory in BUILTIN_PLUGINS.items():
        if pm.get_plugin(name) is None and not pm.is_blocked(name):
            pm.register(factory(), name=name)
