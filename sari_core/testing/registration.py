"""Checking a plugin registers the way the kernel will register it."""

from __future__ import annotations

import pluggy

from sari_core.kernel.loading import (
    declared_client_hooks,
    instantiate,
    plugin_and_hook_entry_points,
)
from sari_core.kernel.manager import SariPluginManager, plugin_name
from sari_core.kernel.plugin import declared_attributes


def check_plugin(plugin: object, name: str | None = None) -> tuple[str, ...]:
    """Register ``plugin`` on a fresh plugin manager, as the kernel does, and check it.

    Fails as the kernel would at start: a hook name no spec has (a misspelling), a hook
    wrapper, or a plugin attribute (``name``, ``fail_closed``, ``client_hook_events``) of
    the wrong type raises :class:`pluggy.PluginValidationError`.

    :return: the hooks the plugin implements, sorted.
    """
    pm = SariPluginManager()
    registered = pm.register(plugin, name=name or plugin_name(plugin))
    pm.check_pending()
    return pm.hooks_of(registered or "")


def check_client_hook_declaration(name: str) -> frozenset[tuple[str, str]] | None:
    """Check what installed plugin ``name`` declares in its metadata (the
    ``sari.client_hooks`` entry points) against the plugin itself.

    ``sari hook`` imports a plugin only for the events it declares, so a declaration that
    leaves out an event its ``on_client_hook`` answers would silently lose that answer.
    Fails with :class:`pluggy.PluginValidationError` when the plugin declares events but
    has no ``on_client_hook``, declares none but has one, or names other events in its
    ``client_hook_events`` attribute.

    :return: the declared ``(client, event)`` pairs; None when it declares nothing.
    :raises LookupError: no installed plugin has that name.
    """
    plugins, declarations = plugin_and_hook_entry_points()
    entry = next((ep for ep in plugins if ep.name == name), None)
    if entry is None:
        raise LookupError(f"no installed plugin is named {name!r} (the 'sari' entry points)")
    declared = declared_client_hooks(plugins, declarations).get(name)
    if declared is None:
        return None
    plugin = instantiate(entry)
    answers = callable(getattr(plugin, "on_client_hook", None))
    attribute = declared_attributes(plugin).client_hook_events
    problem = None
    if answers and not declared:
        problem = "has on_client_hook but declares no client hook event"
    elif declared and not answers:
        problem = f"declares {sorted(declared)} but has no on_client_hook"
    elif attribute is not None and attribute != declared:
        problem = (f"declares {sorted(declared)} in its metadata but {sorted(attribute)} "
                   "as client_hook_events")
    if problem is not None:
        raise pluggy.PluginValidationError(
            plugin, f"plugin {name!r} {problem}: list each event it answers as "
            f"'{name}.CLIENT.EVENT' in the 'sari.client_hooks' entry points, or '{name}' "
            "alone for none")
    return declared
