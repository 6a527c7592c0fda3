"""How Sari runs one hook call inside pluggy: canonical order, each plugin isolated.

:class:`SariHookCaller` is the ``pm.hook.<name>`` of Sari's specs; :func:`run_isolated` is
the loop the manager installs as pluggy's inner hook call, so ``add_hookcall_monitoring``
wraps it like pluggy's own.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pluggy

log = logging.getLogger("sari_core.kernel.manager")


class PluginResult(NamedTuple):
    """What one plugin answered in one hook call: a value, or the failure it raised."""

    plugin: str
    value: Any
    failure: str | None = None


class SariHookCaller(pluggy.HookCaller):
    """``pm.hook.<name>`` for Sari's own specs: pluggy's caller, without its per-call extras.

    pluggy's ``__call__`` warns when a spec argument is missing and copies the
    implementation list for the inner loop; Sari's loop reads its own cached order and
    raises :class:`pluggy.HookCallError` for a missing argument an implementation needs,
    so both are skipped. The call still goes through the manager's ``_hookexec``, so
    call monitoring and tracing see it.
    """

    __slots__ = ()

    def __call__(self, **kwargs: object) -> Any:
        spec = self.spec
        if spec is None or self._call_history is not None or spec.kwargdefaults:
            return super().__call__(**kwargs)
        return self._hookexec(self.name, self._hookimpls, kwargs,
                              spec.opts.get("firstresult", False))


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


def by_plugin(result: PluginResult) -> str:
    return result.plugin


def no_arguments(kwargs: Mapping[str, object]) -> tuple[()]:
    return ()


def canonical_order(impls: Sequence[pluggy.HookImpl]) -> tuple[pluggy.HookImpl, ...]:
    """``tryfirst``, plain, ``trylast``; by plugin name within each group."""
    return tuple(sorted(impls, key=lambda impl: (
        0 if impl.tryfirst else 2 if impl.trylast else 1, impl.plugin_name)))


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
