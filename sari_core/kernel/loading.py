"""Finding installed plugins: the ``sari`` entry-point group and the allow/deny lists.

A plugin that is deny-listed (``SARI_DISABLE_PLUGINS``) or left out of an allow
list (``SARI_PLUGINS``) is never imported: only its entry point's metadata is read.

A plugin may also declare, in the ``sari.client_hooks`` group, which client hook events
(``sari hook CLIENT EVENT``) its ``on_client_hook`` answers, so that a client's hook call,
run in a process of its own on each of the client's tool calls, imports only the plugins
that answer it. The declaration is package metadata, installed with the plugin: it cannot
go stale the way a cache of what the plugins said when last imported would.
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
CLIENT_HOOKS_GROUP = "sari.client_hooks"


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


def plugin_enabled(name: str, allow: list[str] | None, deny: set[str]) -> bool:
    """Whether plugin ``name`` loads under the allow list (None: all) and the deny set."""
    return (allow is None or name in allow) and name not in deny


def installed_entry_points(group: str = ENTRY_POINT_GROUP) -> list[EntryPoint]:
    """Entry points of ``group``, by name (load order never matters, but listings do)."""
    # (imported here: reading the metadata is slow to set up, and the command line's fast
    # commands name this module's settings long before they load any plugin.) The standard
    # library's reader, on every Python Sari supports (3.10 added ``entry_points(group=)``
    # and ``EntryPoint.dist``): pydantic imports it anyway, where the backport was a second
    # reader to import (about 18 ms of CPU) for the same answer.
    from importlib.metadata import entry_points

    return sorted(entry_points(group=group), key=lambda e: e.name)


def plugin_and_hook_entry_points() -> tuple[list[EntryPoint], list[EntryPoint]]:
    """The ``sari`` group's entry points (by name) and the :data:`CLIENT_HOOKS_GROUP`
    group's, from one reading of the installed distributions' metadata."""
    from importlib.metadata import entry_points

    every = entry_points()
    return (sorted(every.select(group=ENTRY_POINT_GROUP), key=lambda e: e.name),
            list(every.select(group=CLIENT_HOOKS_GROUP)))


def instantiate(ep: EntryPoint) -> object:
    """Import the entry point; a class is instantiated with no arguments."""
    obj = ep.load()
    return obj() if isinstance(obj, type) else obj


def load_failure(ep: EntryPoint, error: str) -> PluginLoadError:
    return PluginLoadError(
        f"plugin {ep.name!r} ({ep.value}) failed to load: {error}. "
        f"Fix its installation or disable it: {DENY_ENV}={ep.name}")


def declared_client_hooks(plugins: list[EntryPoint], declarations: list[EntryPoint]
                          ) -> dict[str, frozenset[tuple[str, str]]]:
    """The client hook events each plugin declares it answers, read from its metadata.

    An entry of :data:`CLIENT_HOOKS_GROUP` is named ``PLUGIN.CLIENT.EVENT`` (the plugin
    answers that event) or ``PLUGIN`` alone (it declares its events: none beyond its other
    entries), and its value is the plugin's own ``sari`` entry point value, which ties the
    declaration to the object it describes. A plugin with no such entry, or whose entries
    name another object, is absent from the answer: it declared nothing, and is asked
    about every event.

    :param plugins: the ``sari`` group's entry points.
    :param declarations: the :data:`CLIENT_HOOKS_GROUP` group's entry points.
    :return: plugin name -> ``(client, event)`` pairs, for each plugin that declares them.
    """
    value_of = {ep.name: ep.value for ep in plugins}
    declared: dict[str, set[tuple[str, str]]] = {}
    for entry in declarations:
        if value_of.get(entry.name) == entry.value:
            declared.setdefault(entry.name, set())
            continue
        parts = entry.name.rsplit(".", 2)
        if len(parts) == 3 and value_of.get(parts[0]) == entry.value:
            declared.setdefault(parts[0], set()).add((parts[1], parts[2]))
    return {name: frozenset(events) for name, events in declared.items()}


def plugins_answering(client: str, event: str, plugins: list[EntryPoint],
                      declarations: list[EntryPoint]) -> list[str]:
    """The enabled plugins a ``sari hook CLIENT EVENT`` call imports: those that declare
    they answer it, and those that declare nothing (they may answer anything)."""
    allow = env_names(ALLOW_ENV)
    deny = set(env_names(DENY_ENV) or ())
    declared = declared_client_hooks(plugins, declarations)
    return [ep.name for ep in plugins if plugin_enabled(ep.name, allow, deny)
            and (client, event) in declared.get(ep.name, {(client, event)})]
