"""The plugin protocol: the attributes the kernel reads off a plugin object.

A plugin is any object with ``@hookimpl`` methods. Beside those, the kernel reads three
attributes, declared on :class:`Plugin` with their defaults. Subclassing :class:`Plugin`
is optional; either way :func:`declared_attributes` checks them when the plugin is
registered, so a misspelt type is refused at start rather than misread on a call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Plugin", "PluginAttributes", "declared_attributes"]


class Plugin:
    """Base class documenting what the kernel reads off a plugin (all optional).

    :ivar name: the plugin's name in ``sari plugins``, ``SARI_PLUGINS`` and
        ``PLUGIN_ERROR`` messages; an installed plugin defaults to its entry point's name.
    :ivar fail_closed: when the plugin raises (or returns a reason code nobody
        registered), refuse the call (``True``) instead of serving it with a warning
        (``False``, the default). An operator can also list it in
        ``core.fail_closed_plugins``.
    :ivar client_hook_events: the client hook events its ``on_client_hook`` answers, as
        ``(client, event)`` pairs (``("claude-code", "pre-compact")``); ``sari install``
        wires only those. ``None`` (the default) with an ``on_client_hook`` means every event.
    """

    name: str = ""
    fail_closed: bool = False
    client_hook_events: frozenset[tuple[str, str]] | None = None


@dataclass(frozen=True)
class PluginAttributes:
    """A plugin's declared attributes, checked."""

    name: str | None
    fail_closed: bool
    client_hook_events: frozenset[tuple[str, str]] | None


def declared_attributes(plugin: object) -> PluginAttributes:
    """Read and check :class:`Plugin`'s attributes on ``plugin`` (absent ones default).

    :raises TypeError: an attribute is present with the wrong type.
    """
    name = getattr(plugin, "name", None)
    if isinstance(plugin, type) or hasattr(plugin, "__file__"):
        name = name if isinstance(name, str) else None  # a module's or class's __name__
    elif name is not None and not isinstance(name, str):
        raise TypeError(f"plugin attribute 'name' must be a string, not {type(name).__name__}")
    fail_closed = getattr(plugin, "fail_closed", False)
    if not isinstance(fail_closed, bool):
        raise TypeError("plugin attribute 'fail_closed' must be True or False, not "
                        f"{fail_closed!r}")
    events = getattr(plugin, "client_hook_events", None)
    return PluginAttributes(name or None, fail_closed,
                            None if events is None else _event_pairs(events))


def _event_pairs(events: object) -> frozenset[tuple[str, str]]:
    pairs = list(events) if isinstance(events, Iterable) and not isinstance(events, str) \
        else None
    if pairs is None or not all(isinstance(pair, tuple) and len(pair) == 2
                                and all(isinstance(part, str) for part in pair)
                                for pair in pairs):
        raise TypeError("plugin attribute 'client_hook_events' must be a set of "
                        f"(client, event) string pairs, not {events!r}")
    return frozenset(pairs)
