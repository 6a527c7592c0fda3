"""Loading and calling plugins: the marker, the manager, one typed method per hook.

``hookimpl`` is the public marker plugins use. :class:`SariPluginManager` is
pluggy's manager, used through pluggy's public API only. As in tox's manager, each
typed method (``read_enter``, ``metrics``, ``compaction``...) calls
``self.hook.<name>(...)``: pluggy runs every call, in its own order, and its call
monitoring (tracing, OpenTelemetry) sees every one. A plugin that raises is isolated
by the façade it is registered behind (:mod:`sari_core.kernel.dispatch`): its failure
is returned as a :class:`PluginResult`, not propagated, and the typed method owns the
fold of its hook's results, which never depends on the order plugins answered in.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

import pluggy

from sari_core.errors import ErrorCode
from sari_core.kernel import hookspecs
from sari_core.kernel.dispatch import PluginResult, PolicyFacade, is_firstresult, isolated
from sari_core.kernel.hookspecs import PROJECT_NAME
from sari_core.kernel.loading import (
    ALLOW_ENV,
    DENY_ENV,
    ENTRY_POINT_GROUP,
    PluginInfo,
    PluginLoadError,
    env_names,
    installed_entry_points,
    instantiate,
    load_failure,
    plugin_enabled,
)
from sari_core.kernel.merging import fold_client_hook, merge_compaction, merge_metrics
from sari_core.kernel.plugin import declared_attributes
from sari_core.kernel.reasons import ReasonCode, ReasonRegistry
from sari_core.kernel.registrations import RegistrationCollectors
from sari_core.kernel.trace import enable_trace, trace_requested
from sari_core.kernel.verdicts import FoldedVerdict, PluginVerdict, Verdict, fold_verdicts
from sari_core.models import SearchResult

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint
    from pathlib import Path

    from sari_core.kernel.commands import Command, DoctorCheck
    from sari_core.kernel.context import CallContext
    from sari_core.kernel.sessions import Session
    from sari_core.kernel.view import KernelView
    from sari_core.models import (
        CallRecord,
        ClientHookEvent,
        ClientHookResult,
        CompactionEvent,
        MutationEvent,
        ReadCall,
        ReadResult,
        SearchCall,
        TierEntry,
    )

__all__ = ["ALLOW_ENV", "BUILTIN_PREFIX", "DENY_ENV", "ENTRY_POINT_GROUP", "PluginInfo",
           "PluginLoadError", "PluginResult", "SariPluginManager", "hookimpl", "plugin_name"]

log = logging.getLogger(__name__)

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marker for plugin hook implementations: ``@hookimpl def on_read_enter(call, ctx): ...``"""

BUILTIN_PREFIX = "sari."
_EMPTY_FOLD = FoldedVerdict()


def plugin_name(plugin: object) -> str:
    """A stable name for a plugin object: its ``name`` attribute, else module.Class."""
    explicit = getattr(plugin, "name", None)
    if isinstance(explicit, str) and explicit:
        return explicit
    if isinstance(plugin, type) or hasattr(plugin, "__file__"):
        return getattr(plugin, "__name__", repr(plugin))
    cls = type(plugin)
    return f"{cls.__module__}.{cls.__qualname__}"


class SariPluginManager(RegistrationCollectors, pluggy.PluginManager):
    """pluggy's manager with each plugin isolated and a typed method per hook.

    :ivar reasons: the reason registry verdicts are ordered by (set by the kernel).
    :ivar fail_closed: names of plugins whose failure refuses the call.
    """

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        self._policies: dict[str, object] = {}
        self.add_hookspecs(hookspecs)
        self.discovered: list[PluginInfo] = []
        self.reasons = ReasonRegistry.with_kernel_codes()
        self.fail_closed: frozenset[str] = frozenset()
        if trace_requested():
            enable_trace(self)

    # --- registration -------------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None) -> str | None:
        """Register ``plugin``; a hook wrapper is refused here, before anything runs."""
        for attr in dir(plugin):
            opts = self.parse_hookimpl_opts(plugin, attr)
            if opts and (opts.get("hookwrapper") or opts.get("wrapper")):
                raise pluggy.PluginValidationError(
                    plugin, f"plugin {name or plugin_name(plugin)!r}: {attr} cannot be a "
                    "wrapper; Sari calls each policy in isolation and folds the results")
        try:
            declared_attributes(plugin)
        except TypeError as exc:
            raise pluggy.PluginValidationError(
                plugin, f"plugin {name or plugin_name(plugin)!r}: {exc}") from None
        if self.is_registered(plugin):
            raise ValueError(f"plugin already registered: {plugin!r}")
        registered_name = name or plugin_name(plugin)
        hooks = {}
        for attr in dir(plugin):
            if self.parse_hookimpl_opts(plugin, attr) is not None:
                firstresult = is_firstresult(getattr(self.hook, attr, None))
                hooks[attr] = isolated(getattr(plugin, attr), registered_name, attr, firstresult)
        registered = super().register(PolicyFacade(plugin, registered_name, hooks),
                                      registered_name)
        if registered is not None:
            self._policies[registered] = plugin
        return registered

    # pluggy holds each plugin's façade; these answer with the plugin itself.

    def _facade(self, plugin: object) -> object:
        for name, policy in self._policies.items():
            if policy is plugin:
                return super().get_plugin(name)
        return plugin

    def get_plugin(self, name: str) -> Any | None:
        return self._policies.get(name) if name in self._policies else super().get_plugin(name)

    def list_name_plugin(self) -> list[tuple[str, object]]:
        return [(name, self._policies.get(name, plugin))
                for name, plugin in super().list_name_plugin()]

    def get_name(self, plugin: object) -> str | None:
        return super().get_name(self._facade(plugin))

    def is_registered(self, plugin: object) -> bool:
        return any(policy is plugin for policy in self._policies.values()) \
            or super().is_registered(plugin)

    def get_hookcallers(self, plugin: object) -> list[pluggy.HookCaller] | None:
        return super().get_hookcallers(self._facade(plugin))

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        facade = self._facade(plugin) if plugin is not None else super().get_plugin(name or "")
        removed = super().unregister(facade, name)
        if isinstance(removed, PolicyFacade):
            self._policies.pop(removed.name, None)
            return removed.policy
        return removed

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP, *, strict: bool = True,
                          listing: bool = True, only: Collection[str] | None = None,
                          entry_points: Iterable[EntryPoint] | None = None
                          ) -> list[PluginInfo]:
        """Register installed plugins of ``group`` honouring the allow/deny env lists.

        ``SARI_PLUGINS=a,b`` loads only those; ``SARI_DISABLE_PLUGINS=a,b`` blocks
        those (as tox's ``TOX_DISABLED_EXTERNAL_PLUGINS`` does, via ``set_blocked``).
        A plugin that is not enabled is never imported. An entry point may name a module
        or a class (instantiated with no arguments). Where each plugin came from is in its
        :class:`PluginInfo` (distribution and version). A plugin that fails to
        import raises :class:`PluginLoadError` naming it, or with ``strict=False`` is
        reported in its :class:`PluginInfo` (for ``sari plugins``).

        :param listing: also describe the plugins left disabled. Without it, an empty allow
            list (``SARI_PLUGINS=none``) reads no package metadata at all: every process that
            opens a kernel would otherwise pay reading each installed distribution's
            entry points (and importing the metadata reader) to load nothing.
        :param only: load only the plugins of these names (others are neither imported nor
            listed); the allow and deny lists still apply to them.
        :param entry_points: the group's entry points, when the caller has read them.
        """
        allow = env_names(ALLOW_ENV)
        if allow == [] and not listing:
            self.discovered = []
            self.check_pending()
            return []
        deny = set(env_names(DENY_ENV) or ())
        for name in deny:
            self.set_blocked(name)
        found: list[PluginInfo] = []
        found_entry_points = installed_entry_points(group) if entry_points is None \
            else entry_points
        # pluggy asks the plugin registered last first: registering in reverse name order
        # makes a ``firstresult`` hook's answer the first plugin's by name, whatever the
        # order the installer listed them in.
        for ep in sorted(found_entry_points, key=lambda ep: ep.name, reverse=True):
            if only is not None and ep.name not in only:
                continue
            enabled = plugin_enabled(ep.name, allow, deny)
            dist = getattr(ep, "dist", None)
            error = None
            if enabled and self.get_plugin(ep.name) is None:
                try:
                    plugin = instantiate(ep)
                except Exception as exc:  # noqa: BLE001 - reported with the plugin's name
                    error = f"{type(exc).__name__}: {exc}"
                    if strict:
                        raise load_failure(ep, error) from exc
                else:
                    self.register(plugin, name=ep.name)
            found.append(PluginInfo(
                name=ep.name,
                distribution=dist.metadata["Name"] if dist is not None else None,
                version=dist.version if dist is not None else None,
                hooks=self.hooks_of(ep.name) if enabled else (),
                enabled=enabled and error is None,
                builtin=False,
                error=error,
            ))
        self.discovered = sorted(found, key=lambda info: info.name)
        self.check_pending()
        return self.discovered

    def hooks_of(self, name: str) -> tuple[str, ...]:
        plugin = self.get_plugin(name)
        if plugin is None:
            return ()
        callers = self.get_hookcallers(plugin) or []
        return tuple(sorted(caller.name for caller in callers))

    def plugin_names(self) -> list[str]:
        return sorted(name for name, plugin in self.list_name_plugin() if plugin is not None)

    # --- calling a hook: pluggy's loop, each plugin isolated ---------------------------

    def call_each(self, hook_name: str, **kwargs: object) -> Any:
        """``self.hook.<hook_name>(**kwargs)``: pluggy calls every implementation.

        A missing argument is the caller's error and raises :class:`pluggy.HookCallError`;
        an exception inside a plugin becomes a :class:`PluginResult` with ``failure`` set.

        :return: for ``firstresult`` hooks the first non-None value; otherwise the
            non-None answers and failures as :class:`PluginResult` s, in pluggy's order.
        """
        return getattr(self.hook, hook_name)(**kwargs)

    def implementers(self, hook_name: str) -> list[str]:
        """The plugins implementing ``hook_name``, in the order pluggy calls them."""
        caller = getattr(self.hook, hook_name, None)
        return [impl.plugin_name for impl in reversed(caller.get_hookimpls())] if caller else []

    def has_impls(self, hook_name: str) -> bool:
        """Whether any plugin implements ``hook_name`` (the kernel skips hooks nobody has)."""
        caller = getattr(self.hook, hook_name, None)
        return caller is not None and bool(caller.get_hookimpls())

    # --- policy hooks: folded verdicts --------------------------------------------------

    def read_enter(self, call: ReadCall, session: Session, ctx: CallContext) -> FoldedVerdict:
        if not self.has_impls("on_read_enter"):
            return _EMPTY_FOLD
        return self._fold(self.call_each("on_read_enter", call=call, session=session, ctx=ctx))

    def read_exit(self, call: ReadCall, result: ReadResult, session: Session,
                  ctx: CallContext) -> FoldedVerdict:
        if not self.has_impls("on_read_exit"):
            return _EMPTY_FOLD
        return self._fold(self.call_each("on_read_exit", call=call, result=result, session=session,
                                                 ctx=ctx))

    def search_complete(self, call: SearchCall, result: SearchResult, session: Session,
                        ctx: CallContext) -> FoldedVerdict:
        if not self.has_impls("on_search_complete"):
            return _EMPTY_FOLD
        return self._fold(self.call_each("on_search_complete", call=call, result=result,
                                                       session=session, ctx=ctx))

    def navigate(self, call: SearchCall, session: Session) -> SearchResult | None:
        """The first plugin's exact answer to a navigation search, or None (the index's)."""
        if not self.has_impls("sari_navigate"):
            return None
        result = self.call_each("sari_navigate", call=call, session=session)
        return result if isinstance(result, SearchResult) else None

    def navigation_languages(self) -> list[str]:
        """Languages some plugin navigates exactly (sorted, de-duplicated)."""
        if not self.has_impls("sari_navigation_languages"):
            return []
        answers = self.call_each("sari_navigation_languages")
        return sorted({language for answer in answers if answer.failure is None
                       for language in (answer.value or [])})

    def doctor_checks(self, workspace: Path) -> list[DoctorCheck]:
        """Every plugin's ``sari doctor`` findings; a plugin that raised is one ``error``."""
        from sari_core.kernel.commands import DoctorCheck

        if not self.has_impls("sari_doctor_checks"):
            return []
        checks: list[DoctorCheck] = []
        for answer in self.call_each("sari_doctor_checks", workspace=workspace):
            if answer.failure is not None:
                checks.append(DoctorCheck(f"plugin {answer.plugin}", "error",
                                          f"its doctor check failed: {answer.failure}"))
            else:
                checks.extend(answer.value or [])
        return checks

    def mutation(self, event: MutationEvent, session: Session, ctx: CallContext
                 ) -> FoldedVerdict:
        if not self.has_impls("on_mutation"):
            return _EMPTY_FOLD
        return self._fold(self.call_each("on_mutation", event=event, session=session, ctx=ctx))

    def _fold(self, results: list[PluginResult]) -> FoldedVerdict:
        if not results:  # every policy abstained: nothing to fold
            return _EMPTY_FOLD
        items = [PluginVerdict(r.plugin, self._checked(r))
                 for r in results if r.failure is not None or isinstance(r.value, Verdict)]
        return fold_verdicts(items, self.reasons) if items else _EMPTY_FOLD

    def _checked(self, result: PluginResult) -> Verdict:
        """The plugin's verdict, or its failure's: a failure is what it raised, or a reason
        code nobody registered (which must never reach the model as if it meant something)."""
        if result.failure is not None:
            return self._failure_verdict(result)
        verdict: Verdict = result.value
        unknown = [code for code in verdict.reason_codes if code not in self.reasons]
        if not unknown:
            return verdict
        failure = (f"returned reason code(s) nobody registered: {', '.join(unknown)} "
                   "(register them in sari_register_reason_codes)")
        log.error("plugin %s %s", result.plugin, failure)
        return self._failure_verdict(result._replace(failure=failure))

    def _failure_verdict(self, result: PluginResult) -> Verdict:
        plugin = self.get_plugin(result.plugin)
        closed = result.plugin in self.fail_closed or (
            plugin is not None and declared_attributes(plugin).fail_closed)
        message = f"plugin {result.plugin!r} failed: {result.failure}"
        return Verdict(
            action="block" if closed else "warn",
            reason_codes=(ReasonCode.PLUGIN_ERROR.value,),
            error_code=ErrorCode.PLUGIN_ERROR,
            message=message if closed else "",
            hint="The plugin fails closed; fix or disable it (SARI_DISABLE_PLUGINS)."
            if closed else "",
            warnings=(message,),
        )

    # --- observation hooks ----------------------------------------------------------------

    def _announce(self, results: list[PluginResult] | None, hook_name: str) -> None:
        for result in results or ():
            if result.failure is not None:
                log.error("plugin %s failed in %s: %s", result.plugin, hook_name, result.failure)

    def call_complete(self, record: CallRecord, session: Session, ctx: CallContext) -> None:
        self._announce(self.call_each("on_call_complete", record=record, session=session, ctx=ctx),
                       "on_call_complete")

    def kernel_start(self, kernel: KernelView) -> None:
        self._announce(self.call_each("on_kernel_start", kernel=kernel), "on_kernel_start")

    def kernel_shutdown(self, kernel: KernelView) -> None:
        self._announce(self.call_each("on_kernel_shutdown", kernel=kernel), "on_kernel_shutdown")

    def session_start(self, session: Session) -> None:
        self._announce(self.call_each("on_session_start", session=session), "on_session_start")

    def session_end(self, session: Session) -> None:
        self._announce(self.call_each("on_session_end", session=session), "on_session_end")

    def tier_entry(self, entry: TierEntry, session: Session) -> None:
        self._announce(self.call_each("on_tier_entry", entry=entry, session=session), "on_tier_entry")

    def compaction_complete(self, event: CompactionEvent, summary: str, session: Session
                            ) -> None:
        self._announce(self.call_each("on_compaction_complete", event=event, summary=summary,
                                                        session=session),
                       "on_compaction_complete")

    # --- hooks whose answers are merged -------------------------------------------------

    def metrics(self, session: Session, ctx: CallContext | None = None) -> dict[str, Any]:
        """Every plugin's metrics, merged and sorted by key (see :func:`merge_metrics`)."""
        if not self.has_impls("sari_collect_metrics"):
            return {}
        return merge_metrics(self.call_each("sari_collect_metrics", session=session, ctx=ctx))

    def compaction(self, event: CompactionEvent, session: Session) -> str:
        """The compaction summary (see :func:`merge_compaction`)."""
        results = self.call_each("on_compaction", event=event, session=session)
        self._announce(results, "on_compaction")
        return merge_compaction(results)

    def client_hook(self, event: ClientHookEvent) -> tuple[ClientHookResult, list[str]]:
        """Every plugin's answer to a client hook, folded (see :func:`fold_client_hook`)."""
        return fold_client_hook(self.call_each("on_client_hook", event=event))

    def commands(self) -> list[Command]:
        """CLI subcommands of every plugin; a plugin that fails here is skipped, logged."""
        results = self.call_each("sari_register_commands")
        self._announce(results, "sari_register_commands")
        return [command for r in results if r.failure is None for command in r.value]
