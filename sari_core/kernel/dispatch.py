"""How Sari runs one hook call: canonical order, each plugin isolated, through pluggy's public API.

The manager's typed methods call :func:`run_isolated` with the implementations pluggy lists
for a hook (``HookCaller.get_hookimpls``), sorted by :func:`canonical_order`. Nothing of
pluggy's own call loop is replaced: a direct ``pm.hook.<name>(...)`` still runs pluggy's
loop, unisolated, for a caller that wants that.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pluggy

log = logging.getLogger("sari_core.kernel.manager")

BeforeCall = Callable[[str, Sequence[pluggy.HookImpl], Mapping[str, object]], None]
AfterCall = Callable[[pluggy.Result[Any], str, Sequence[pluggy.HookImpl],
                      Mapping[str, object]], None]


class PluginResult(NamedTuple):
    """What one plugin answered in one hook call: a value, or the failure it raised."""

    plugin: str
    value: Any
    failure: str | None = None


class Invocation(NamedTuple):
    """One implementation, ready to call: its arguments picked from the call's kwargs in C."""

    plugin: str
    function: Callable[..., Any]
    arguments: Callable[[Mapping[str, object]], Any]
    arity: int

    @classmethod
    def of(cls, impl: pluggy.HookImpl) -> Invocation:
        names = tuple(impl.argnames)
        picker = operator.itemgetter(*names) if names else no_arguments
        return cls(impl.plugin_name, impl.function, picker, len(names))


class HookPlan(NamedTuple):
    """One hook's implementations in the order Sari calls them, and how it answers."""

    impls: tuple[pluggy.HookImpl, ...]
    calls: tuple[Invocation, ...]
    firstresult: bool


def by_plugin(result: PluginResult) -> str:
    return result.plugin


def no_arguments(kwargs: Mapping[str, object]) -> tuple[()]:
    return ()


def canonical_order(impls: Sequence[pluggy.HookImpl]) -> tuple[pluggy.HookImpl, ...]:
    """``tryfirst``, plain, ``trylast``; by plugin name within each group."""
    return tuple(sorted(impls, key=lambda impl: (
        0 if impl.tryfirst else 2 if impl.trylast else 1, impl.plugin_name)))


def plan(caller: pluggy.HookCaller | None) -> HookPlan:
    """The plan of one hook, from pluggy's public view of it."""
    if caller is None:
        return HookPlan((), (), False)
    impls = canonical_order(caller.get_hookimpls())
    spec = caller.spec
    firstresult = bool(spec.opts.get("firstresult", False)) if spec is not None else False
    return HookPlan(impls, tuple(Invocation.of(impl) for impl in impls), firstresult)


def run_isolated(hook_name: str, calls: Sequence[Invocation], kwargs: Mapping[str, object],
                 firstresult: bool) -> Any:
    """Call each implementation in order; a plugin's exception is its :class:`PluginResult`.

    :raises pluggy.HookCallError: an implementation needs an argument the call lacks.
    :return: for ``firstresult`` hooks the first non-None value; otherwise the non-None
        answers and failures, in call order.
    """
    results: list[PluginResult] = []
    for plugin, function, arguments, arity in calls:
        try:
            args = arguments(kwargs) if arity else ()
        except KeyError:
            raise pluggy.HookCallError(
                f"{hook_name} called without an argument plugin {plugin!r} needs "
                f"(given: {sorted(kwargs)})") from None
        try:
            value = function(*args) if arity != 1 else function(args)
        except Exception as exc:  # isolation is the point: report, go on
            log.warning("plugin %s raised in %s: %r", plugin, hook_name, exc, exc_info=True)
            results.append(PluginResult(plugin, None, f"{type(exc).__name__}: {exc}"))
            continue
        if value is not None:
            if firstresult:
                return value
            results.append(PluginResult(plugin, value))
    return None if firstresult else results


def run_monitored(monitors: Sequence[tuple[BeforeCall, AfterCall]], hook_name: str,
                  hook: HookPlan, kwargs: Mapping[str, object]) -> Any:
    """:func:`run_isolated`, with each monitor told before and after (pluggy's signatures)."""
    for before, _ in monitors:
        before(hook_name, list(hook.impls), kwargs)
    outcome = pluggy.Result.from_call(
        lambda: run_isolated(hook_name, hook.calls, kwargs, hook.firstresult))
    for _, after in monitors:
        after(outcome, hook_name, list(hook.impls), kwargs)
    return outcome.get_result()
