"""Finding installed plugins: the ``sari`` entry-point group and the allow/deny lists.

A plugin that is deny-listed (``SARI_DISABLE_PLUGINS``) or left out of an allow
list (``SARI_PLUGINS``) is never imported: only its entry point's metadata is read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "sari"
ALLOW_ENV = "SARI_PLUGINS"
DENY_ENV = "SARI_DISABLE_PLUGINS"
PLUGINS_DIR_ENV = "SARI_PLUGINS_DIR"  # a folder of local policy modules (see local_policies)


@dataclass(frozen=True)
class PluginInfo:
    """An installed plugin as ``sari plugins`` lists it.

    :ivar hooks: the hooks it implements; empty for a plugin that was not loaded.
    :ivar error: why it failed to load, when it did.
    """

    name: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]
    enabled: bool
    builtin: bool
    error: str | None = None


class PluginLoadError(Exception):
    """An installed plugin could not be imported or instantiated."""


def env_names(var: str) -> list[str] | None:
    """Names in a comma-separated env list; None when unset; ``none`` means the empty list."""
    raw = os.environ.get(var)
    if raw is None or not raw.strip():
        return None
    if raw.strip().lower() == "none":
        return []
    return [name.strip() for name in raw.split(",") if name.strip()]


def installed_entry_points(group: str = ENTRY_POINT_GROUP) -> list[EntryPoint]:
    """Entry points of ``group``, by name (load order never matters, but listings do)."""
    # (imported here: reading the metadata is slow to set up, and the command line's fast
    # commands name this module's settings long before they load any plugin.) The standard
    # library's reader, on every Python Sari supports (3.10 added ``entry_points(group=)``
    # and ``EntryPoint.dist``): pydantic imports it anyway, where the backport was a second
    # reader to import (about 18 ms of CPU) for the same answer.
    from importlib.metadata import entry_points

    return sorted(entry_points(group=group), key=lambda e: e.name)


def instantiate(ep: EntryPoint) -> object:
    """Import the entry point; a class is instantiated with no arguments."""
    obj = ep.load()
    return obj() if isinstance(obj, type) else obj


def load_failure(ep: EntryPoint, error: str) -> PluginLoadError:
    return PluginLoadError(
        f"plugin {ep.name!r} ({ep.value}) failed to load: {error}. "
        f"Fix its installation or disable it: {DENY_ENV}={ep.name}")
