"""Checking a plugin registers the way the kernel will register it."""

from __future__ import annotations

from sari_core.kernel.manager import SariPluginManager, plugin_name


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
