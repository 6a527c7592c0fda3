"""How Sari runs one hook call: pluggy's own loop, each plugin isolated by a façade.

Every call goes through ``pm.hook.<name>(...)``, so pluggy runs it: its argument
handling, its order (``tryfirst``, plain, ``trylast``; within a group the plugin
registered last first) and its call monitoring (tracing, OpenTelemetry) are the same
for Sari's calls as for any other host. What Sari adds is registered with the plugin:
the manager registers a :class:`PolicyFacade` whose hook functions are the plugin's,
each wrapped so that an exception becomes a :class:`PluginResult` instead of ending
the call for every other plugin.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import pluggy

log = logging.getLogger("sari_core.kernel.manager")

# pluggy's call-monitoring signatures (``PluginManager.add_hookcall_monitoring``).
BeforeCall = Callable[[str, Sequence[pluggy.HookImpl], Mapping[str, object]], None]
AfterCall = Callable[[pluggy.Result[Any], str, Sequence[pluggy.HookImpl],
                      Mapping[str, object]], None]


class PluginResult(NamedTuple):
    """What one plugin answered in one hook call: a value, or the failure it raised."""

    plugin: str
    value: Any
    failure: str | None = None


def by_plugin(result: PluginResult) -> str:
    return result.plugin


def isolated(function: Callable[..., Any], plugin: str, hook_name: str,
             firstresult: bool) -> Callable[..., Any]:
    """``function`` answering as :class:`PluginResult`, its exception caught.

    pluggy reads the wrapped function's parameters (``__wrapped__``), so it hands the
    wrapper exactly what it would hand the plugin. A ``firstresult`` hook gets the bare
    value (the first non-None ends pluggy's loop) and a failure is logged and skipped.
    """

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            value = function(*args, **kwargs)
        except Exception as exc:  # isolation is the point: report, go on
            log.warning("plugin %s raised in %s: %r", plugin, hook_name, exc, exc_info=True)
            if firstresult:
                return None
            return PluginResult(plugin, None, f"{type(exc).__name__}: {exc}")
        if firstresult or value is None:
            return value
        return PluginResult(plugin, value)

    return call


class PolicyFacade:
    """What the manager registers for one plugin: its hook functions, each isolated.

    Any other attribute is the plugin's own, so pluggy and the kernel read the plugin's
    declarations through it; the manager hands callers the plugin itself
    (:attr:`policy`), never the façade.
    """

    def __init__(self, policy: object, name: str, hooks: dict[str, Callable[..., Any]]) -> None:
        self.policy = policy
        self.name = name
        for attribute, function in hooks.items():
            setattr(self, attribute, function)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.policy, attribute)

    def __dir__(self) -> Iterator[str]:  # type: ignore[override]
        return iter(dir(self.policy))


def is_firstresult(caller: pluggy.HookCaller | None) -> bool:
    spec = caller.spec if caller is not None else None
    return bool(spec.opts.get("firstresult", False)) if spec is not None else False
