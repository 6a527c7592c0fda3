"""Loading and calling plugins: markers, the manager, entry-point discovery.

``hookimpl`` is the public marker plugins use. :class:`SariPluginManager` wraps
pluggy's manager with one typed method per policy hook, calls each plugin in
isolation (a raising plugin is reported, not propagated) and in a canonical
order independent of load order.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

import pluggy

from sari_core import hookspecs
from sari_core.hookspecs import PROJECT_NAME

if __import__("sys").version_info >= (3, 12):
    from importlib.metadata import EntryPoint, entry_points
else:  # pragma: no cover - older Pythons need the backport for .select()
    from importlib_metadata import EntryPoint, entry_points

log = logging.getLogger(__name__)

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marker for plugin hook implementations: ``@hookimpl def on_read_enter(call, session): ...``"""

ENTRY_POINT_GROUP = "sari"
ALLOW_ENV = "SARI_PLUGINS"
DENY_ENV = "SARI_DISABLE_PLUGINS"
BUILTIN_PREFIX = "sari."


@dataclass(frozen=True)
class PluginFailure:
    """A plugin raised inside a hook."""

    plugin: str
    hook: str
    error: str


@dataclass(frozen=True)
class PluginInfo:
    name: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]
    enabled: bool
    builtin: bool
    error: str | None = None


class PluginLoadError(Exception):
    """An installed plugin could not be imported or instantiated."""


def _env_names(var: str) -> list[str] | None:
    """Names in a comma-separated env list; None when unset; ``none`` means the empty list."""
    raw = os.environ.get(var)
    if raw is None or not raw.strip():
        return None
    if raw.strip().lower() == "none":
        return []
    return [name.strip() for name in raw.split(",") if name.strip()]


def plugin_name(plugin: object) -> str:
    """A stable name for a plugin object: its ``name`` attribute, else module.Class."""
    explicit = getattr(plugin, "name", None)
    if isinstance(explicit, str) and explicit:
        return explicit
    if isinstance(plugin, type) or hasattr(plugin, "__file__"):
        return getattr(plugin, "__name__", repr(plugin))
    cls = type(plugin)
    return f"{cls.__module__}.{cls.__qualname__}"


class SariPluginManager(pluggy.PluginManager):
    """pluggy's manager plus isolated, canonically ordered calls."""

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self._impl_cache: dict[str, list[tuple[str, Any, tuple[str, ...]]]] = {}
        self.discovered: list[PluginInfo] = []

    # --- registration ---------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None) -> str | None:
        registered = super().register(plugin, name)
        self._impl_cache.clear()
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        removed = super().unregister(plugin, name)
        self._impl_cache.clear()
        return removed

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP, *, strict: bool = True
                          ) -> list[PluginInfo]:
        """Register installed plugins of ``group`` honouring the allow/deny env lists.

        ``SARI_PLUGINS=a,b`` loads only those; ``SARI_DISABLE_PLUGINS=a,b`` blocks
        those (as tox's ``TOX_DISABLED_EXTERNAL_PLUGINS`` does, via ``set_blocked``).
        An entry point may name a module or a class (instantiated with no arguments).
        A plugin that fails to import raises :class:`PluginLoadError` naming it, or with
        ``strict=False`` is reported in its :class:`PluginInfo` (for ``sari plugins``).
        """
        allow = _env_names(ALLOW_ENV)
        deny = set(_env_names(DENY_ENV) or ())
        for name in deny:
            self.set_blocked(name)
        found: list[PluginInfo] = []
        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            enabled = (allow is None or ep.name in allow) and ep.name not in deny
            dist = getattr(ep, "dist", None)
            hooks: tuple[str, ...] = ()
            error = None
            if enabled and self.get_plugin(ep.name) is None:
                try:
                    plugin = _instantiate(ep)
                except Exception as exc:  # noqa: BLE001 - reported with the plugin's name
                    error = f"{type(exc).__name__}: {exc}"
                    if strict:
                        raise PluginLoadError(
                            f"plugin {ep.name!r} ({ep.value}) failed to load: {error}. "
                            f"Fix its installation or disable it: SARI_DISABLE_PLUGINS={ep.name}"
                        ) from exc
                else:
                    self.register(plugin, name=ep.name)
                    hooks = self.hooks_of(ep.name)
            found.append(PluginInfo(
                name=ep.name,
                distribution=dist.metadata["Name"] if dist is not None else None,
                version=dist.version if dist is not None else None,
                hooks=hooks if enabled else _declared_hooks(ep),
                enabled=enabled and error is None,
                builtin=False,
                error=error,
            ))
        self.discovered = found
        self.check_pending()
        return found

    def hooks_of(self, name: str) -> tuple[str, ...]:
        plugin = self.get_plugin(name)
        if plugin is None:
            return ()
        callers = self.get_hookcallers(plugin) or []
        return tuple(sorted(caller.name for caller in callers))

    # --- calling --------------------------------------------------------------------

    def ordered_impls(self, hook_name: str) -> list[tuple[str, Any, tuple[str, ...]]]:
        """(plugin name, function, argnames) in canonical order: tryfirst, plain, trylast, by name."""
        cached = self._impl_cache.get(hook_name)
        if cached is not None:
            return cached
        caller = getattr(self.hook, hook_name)
        impls = []
        for impl in caller.get_hookimpls():
            if impl.hookwrapper or impl.wrapper:
                raise pluggy.PluginValidationError(
                    impl.plugin,
                    f"plugin {impl.plugin_name!r}: {hook_name} cannot be a wrapper; "
                    "Sari calls each policy in isolation and folds the verdicts",
                )
            group = 0 if impl.tryfirst else 2 if impl.trylast else 1
            impls.append((group, impl.plugin_name, impl.function, tuple(impl.argnames)))
        impls.sort(key=lambda item: (item[0], item[1]))
        ordered = [(name, fn, argnames) for _, name, fn, argnames in impls]
        self._impl_cache[hook_name] = ordered
        return ordered

    def call_isolated(
        self, hook_name: str, kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[PluginFailure]]:
        """Call every impl of ``hook_name``; collect non-None results and failures.

        :return: ([(plugin, result)], [failures]) in canonical order.
        """
        results: list[tuple[str, Any]] = []
        failures: list[PluginFailure] = []
        for name, function, argnames in self.ordered_impls(hook_name):
            try:
                value = function(*[kwargs[arg] for arg in argnames])
            except Exception as exc:  # isolation is the point: report, go on
                log.warning("plugin %s raised in %s: %r", name, hook_name, exc, exc_info=True)
                failures.append(PluginFailure(name, hook_name, f"{type(exc).__name__}: {exc}"))
                continue
            if value is not None:
                results.append((name, value))
        return results, failures

    def plugin_names(self) -> list[str]:
        return sorted(name for name, plugin in self.list_name_plugin() if plugin is not None)


def _instantiate(ep: EntryPoint) -> object:
    obj = ep.load()
    return obj() if isinstance(obj, type) else obj


def _declared_hooks(ep: EntryPoint) -> tuple[str, ...]:
    """Hook names a disabled plugin would implement, without registering it."""
    try:
        obj = ep.load()
    except Exception:  # noqa: BLE001 - a disabled plugin that fails to import has no hooks
        return ()
    names = set(hookspecs.HOOK_NAMES)
    found = []
    for attr in dir(obj):
        if attr in names and hasattr(getattr(obj, attr, None), f"{PROJECT_NAME}_impl"):
            found.append(attr)
    return tuple(sorted(found))
