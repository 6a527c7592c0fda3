"""The kernel: runs every call through the hook pipeline around an engine call.

``Kernel.execute_read`` / ``execute_search`` / ``execute_mutation`` / ``compact``
are the entry points the MCP server, the CLI and library users call. Each one
resolves the session, raises changes seen on disk, asks the policies
(``on_*`` hooks), folds their verdicts, calls the engine, and returns the
contract's response object — never raising for a refusal.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sari_core import arguments, responses
from sari_core.analytics import AnalyticsQueue, AnalyticsSink, JsonLinesSink
from sari_core.calls import Call, narrowed
from sari_core.core_settings import CoreSettings
from sari_core.engine_protocol import Engine
from sari_core.errors import ErrorCode, SariError
from sari_core.locations import state_dir
from sari_core.models import (
    CompactionEvent,
    MutationEvent,
    ReadCall,
    TierEntry,
)
from sari_core.plugin_manager import PluginFailure, SariPluginManager, plugin_name
from sari_core.reasons import ReasonCode, ReasonRegistry
from sari_core.sessions import (
    RuntimeStateStore,
    Session,
    SessionState,
    new_connection_id,
    resolve_session_key,
    strict_session_mode,
    workspace_hash,
)
from sari_core.settings import SettingsSpec, SettingsStore
from sari_core.tools import ToolSpec
from sari_core.verdicts import FoldedVerdict, PluginVerdict, Verdict, fold_verdicts

log = logging.getLogger(__name__)

CORE_SECTION = "core"
_NO_METRICS: dict[str, Any] = {}


class Kernel:
    """The policy pipeline around one workspace engine.

    :param engine: the workspace engine; by default :class:`sari_core.engine.Workspace`
        over ``roots``.
    :param roots: workspace folders (used when ``engine`` is not given).
    :param plugins: extra plugin objects to register (tests, embedding).
    :param load_entry_points: load installed plugins of group ``sari``.
    :param builtins: register the kernel's built-in plugins (session metrics).
    :param settings: per-section overrides, e.g. ``{"budget": {"max_reads_per_session": 5}}``.
    :param analytics_sinks: sinks replacing the default JSON-lines file.
    """

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        roots: Iterable[str | os.PathLike[str]] = (),
        plugins: Iterable[object] = (),
        load_entry_points: bool = True,
        builtins: bool = True,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        analytics_sinks: Iterable[AnalyticsSink] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if engine is None:
            from sari_core.engine import Workspace

            engine = Workspace([Path(root) for root in roots] or [Path.cwd()])
        self.engine = engine
        self.roots: list[Path] = list(engine.roots)
        self.workspace_hash = workspace_hash(self.roots[0])
        self.pm = SariPluginManager()
        if builtins:
            from sari_core.builtin import register_builtins

            register_builtins(self.pm)
        if load_entry_points:
            self.pm.load_entry_points()
        for plugin in plugins:
            self.pm.register(plugin, name=plugin_name(plugin))
        self.pm.check_pending()

        self.reasons = ReasonRegistry.with_kernel_codes()
        for owner, specs in self._registrations("sari_register_reason_codes"):
            for spec in specs:
                self.reasons.register(spec, owner=owner)
        specs = [SettingsSpec(CORE_SECTION, CoreSettings)]
        specs += [spec for _, spec in self._registrations("sari_register_settings")]
        self.settings = SettingsStore.load(specs, self.roots[0], settings, environ)
        self.core: CoreSettings = self.settings.get(CORE_SECTION)
        self.tools: dict[str, ToolSpec] = {}
        for owner, tool_specs in self._registrations("sari_register_tools"):
            for spec in tool_specs:
                if spec.name in self.tools:
                    raise ValueError(f"tool {spec.name!r} of plugin {owner!r} is already registered")
                self.tools[spec.name] = spec

        self.sessions = RuntimeStateStore(
            max_sessions=self.core.max_sessions,
            ttl_seconds=self.core.session_ttl_seconds,
            on_evict=self._end_session,
        )
        sinks = list(analytics_sinks) if analytics_sinks is not None else self._default_sinks()
        self.analytics = AnalyticsQueue(sinks, maxsize=self.core.analytics_queue_size)
        self._sequence = itertools.count(1)
        self._execution_prefix = new_connection_id()[:8]
        self.default_connection_id = new_connection_id()
        self._strict_sessions = strict_session_mode()
        self._closed = False
        self.announce("on_kernel_start", {"kernel": self})

    # --- construction helpers -------------------------------------------------------

    def _registrations(self, hook: str) -> list[tuple[str, Any]]:
        kwargs = {"kernel": self} if hook == "sari_register_analytics_sinks" else {}
        results, failures = self.pm.call_isolated(hook, kwargs)
        if failures:
            failure = failures[0]
            raise RuntimeError(f"plugin {failure.plugin!r} failed in {hook}: {failure.error}")
        return results

    def _default_sinks(self) -> list[AnalyticsSink]:
        sinks: list[AnalyticsSink] = []
        if self.core.analytics_enabled:
            sinks.append(JsonLinesSink(state_dir() / "analytics" / f"{self.workspace_hash}.jsonl"))
        for _, extra in self._registrations("sari_register_analytics_sinks"):
            sinks.extend(extra)
        return sinks

    def announce(self, hook: str, kwargs: dict[str, Any]) -> None:
        _, failures = self.pm.call_isolated(hook, kwargs)
        for failure in failures:
            log.error("plugin %s failed in %s: %s", failure.plugin, hook, failure.error)

    # --- sessions -------------------------------------------------------------------

    def session(
        self,
        session_id: str | None = None,
        connection_id: str | None = None,
        client_connection_id: str | None = None,
    ) -> Session:
        """Resolve (and create on first use) the session a call belongs to.

        :raises SessionIdRequired: in strict mode when ``session_id`` is missing.
        """
        connection = connection_id or self.default_connection_id
        key = resolve_session_key(
            session_id=session_id, connection_id=connection, ws_hash=self.workspace_hash,
            strict=self._strict_sessions,
        )
        state, created = self.sessions.get(key)
        session = Session(key, session_id, connection, state, self, client_connection_id)
        if created:
            self.announce("on_session_start", {"session": session})
        return session

    def _end_session(self, state: SessionState) -> None:
        session = Session(state.key, None, "", state, self)
        self.announce("on_session_end", {"session": session})

    def end_connection(self, connection_id: str) -> None:
        """A connection closed: end the sessions keyed by it."""
        suffix = f":conn:{connection_id}"
        for key in list(self.sessions.keys()):
            if key.endswith(suffix):
                state = self.sessions.discard(key)
                if state is not None:
                    self._end_session(state)

    # --- the pipeline ---------------------------------------------------------------

    def _fold(self, hook: str, kwargs: dict[str, Any]) -> FoldedVerdict:
        results, failures = self.pm.call_isolated(hook, kwargs)
        if not results and not failures:  # every policy abstained: nothing to fold
            return FoldedVerdict()
        items = [PluginVerdict(name, value) for name, value in results if isinstance(value, Verdict)]
        items.extend(self._failure_verdicts(failures))
        return fold_verdicts(items, self.reasons)

    def _failure_verdicts(self, failures: list[PluginFailure]) -> list[PluginVerdict]:
        verdicts = []
        for failure in failures:
            plugin = self.pm.get_plugin(failure.plugin)
            closed = failure.plugin in self.core.fail_closed_plugins or bool(
                getattr(plugin, "fail_closed", False))
            message = f"plugin {failure.plugin!r} failed in {failure.hook}: {failure.error}"
            verdict = Verdict(
                action="block" if closed else "warn",
                reason_codes=(ReasonCode.PLUGIN_ERROR.value,),
                error_code=ErrorCode.PLUGIN_ERROR,
                message=message if closed else "",
                hint="The plugin fails closed; fix or disable it (SARI_DISABLE_PLUGINS)."
                if closed else "",
                warnings=(message,),
            )
            verdicts.append(PluginVerdict(failure.plugin, verdict))
        return verdicts

    def metrics_snapshot(self, session: Session) -> dict[str, Any]:
        results, _ = self.pm.call_isolated("sari_collect_metrics", {"session": session})
        if not results:
            return _NO_METRICS
        merged: dict[str, Any] = {}
        for _, values in sorted(results, key=lambda item: item[0]):
            merged.update(values)
        return dict(sorted(merged.items()))

    def _external_changes(self, session: Session) -> FoldedVerdict | None:
        changes = self.engine.poll_changes()
        if not changes:
            return None
        event = MutationEvent(phase="after", source="external", tool="external",
                              changes=changes, applied=True)
        folded = self._fold("on_mutation", {"event": event, "session": session})
        folded.reason_codes = self.reasons.order([*folded.reason_codes, ReasonCode.EXTERNAL_CHANGE])
        return folded

    def new_execution_id(self) -> str:
        return f"ex-{self._execution_prefix}-{next(self._sequence)}"

    def execute_read(self, args: Mapping[str, Any] | ReadCall, *, connection_id: str | None = None,
                     entrypoint: str = "read") -> dict[str, Any]:
        """Serve a ``read`` (or a deprecated wrapper's call, named by ``entrypoint``)."""
        raw = args.model_dump(exclude_none=True) if isinstance(args, BaseModel) else dict(args)
        flight = Call(self, entrypoint, raw, {
            "mode": raw.get("mode"), "target": raw.get("target") or raw.get("path")
            or raw.get("name")})
        session = flight.open_session(connection_id)
        if session is None:
            return flight.refusal
        external = self._external_changes(session)
        try:
            values = raw if entrypoint == "read" else arguments.legacy_read_args(entrypoint, raw)
            call = args if isinstance(args, ReadCall) else arguments.parse_read(values, entrypoint)
        except SariError as exc:
            return flight.refuse(exc, external)
        flight.kind = {"mode": call.mode, "target": call.target}
        enter = self._fold("on_read_enter", {"call": call, "session": session})
        if external is not None:
            enter = external.merge(enter, self.reasons)
        if enter.blocked:
            return flight.block(enter)
        if enter.narrow:
            call = narrowed(call, enter.narrow)
        try:
            result = self.engine.read(call)
        except SariError as exc:
            return flight.refuse(exc, enter)
        exit_fold = self._fold("on_read_exit", {"call": call, "result": result, "session": session})
        folded = enter.merge(exit_fold, self.reasons)
        if exit_fold.blocked:
            return flight.block(folded)
        return flight.serve(responses.read_response(
            call, result, folded, self.metrics_snapshot(session), flight.execution_id))

    def execute_search(self, args: Mapping[str, Any], *, connection_id: str | None = None
                       ) -> dict[str, Any]:
        """Serve a ``search``."""
        raw = dict(args)
        flight = Call(self, "search", raw, {"query": raw.get("query"), "target": raw.get("query")})
        session = flight.open_session(connection_id)
        if session is None:
            return flight.refusal
        external = self._external_changes(session)
        try:
            call = arguments.parse_search(raw)
            result = self.engine.search(call)
        except SariError as exc:
            return flight.refuse(exc, external)
        folded = self._fold("on_search_complete",
                            {"call": call, "result": result, "session": session})
        if external is not None:
            folded = external.merge(folded, self.reasons)
        if not result.index_ready:
            folded.reason_codes = self.reasons.order([*folded.reason_codes,
                                                      ReasonCode.INDEX_BUILDING])
        if folded.blocked:
            return flight.block(folded)
        return flight.serve(responses.search_response(
            result, folded, self.metrics_snapshot(session), flight.execution_id))

    def execute_mutation(self, tool: str, args: Mapping[str, Any], *,
                         connection_id: str | None = None) -> dict[str, Any]:
        """Serve an ``edit`` or ``write``: veto check, atomic write, validation."""
        raw = dict(args)
        flight = Call(self, tool, raw, {"tool": tool, "target": raw.get("path")})
        session = flight.open_session(connection_id)
        if session is None:
            return flight.refusal
        external = self._external_changes(session)
        try:
            call = arguments.parse_mutation(tool, raw)
            changes = self.engine.plan_mutation(call)
        except SariError as exc:
            return flight.refuse(exc, external)
        target = changes[0].path if changes else call.path
        flight.kind = {"tool": tool, "target": target}
        before = MutationEvent(phase="before", source="sari", tool=call.tool, changes=changes)
        veto = self._fold("on_mutation", {"event": before, "session": session})
        if external is not None:
            veto = external.merge(veto, self.reasons)
        if veto.blocked:
            return flight.block(veto)
        try:
            self.engine.apply_mutation(changes)
        except SariError as exc:
            return flight.refuse(exc, veto)
        after = MutationEvent(phase="after", source="sari", tool=call.tool, changes=changes,
                              applied=True)
        folded = veto.merge(self._fold("on_mutation", {"event": after, "session": session}),
                            self.reasons)
        # After the write a block cannot undo it: it is reported as gate state, ok stays true.
        payload: dict[str, Any] = {"changes": [responses.change_summary(c) for c in changes]}
        if tool == "edit":
            payload["replacements"] = call.expected_occurrences
        response = responses.tool_response(tool, target, payload, folded,
                                           self.metrics_snapshot(session), flight.execution_id)
        if folded.blocked:
            response["meta"]["gated"] = {"by": folded.blocked_by, "code": folded.error_code,
                                         "message": folded.message}
        return flight.serve(response)

    def execute_tool(self, name: str, args: Mapping[str, Any], *,
                     connection_id: str | None = None) -> dict[str, Any]:
        """Serve a plugin-registered tool (``context_query``, ``context_tiers``...)."""
        raw = dict(args)
        flight = Call(self, name, raw, {"tool": name, "target": None})
        session = flight.open_session(connection_id)
        if session is None:
            return flight.refusal
        spec = self.tools.get(name)
        try:
            if spec is None:
                raise SariError(ErrorCode.UNKNOWN_TOOL, f"unknown tool {name!r}.",
                                f"Available tools: {', '.join(sorted(self.tools))}.")
            parsed = spec.input_model.model_validate(
                {k: v for k, v in raw.items() if v is not None})
            response = spec.handler(parsed, session)
            # A handler cannot know the call's id: stamp it, so the response and the
            # execution log (on_call_complete) name the same execution.
            if isinstance(response.get("meta"), dict):
                response["meta"]["execution_id"] = flight.execution_id
        except SariError as exc:
            return flight.refuse(exc)
        except Exception as exc:  # noqa: BLE001 - pydantic errors and plugin bugs become refusals
            return flight.refuse(SariError(
                ErrorCode.INVALID_ARGS if exc.__class__.__name__ == "ValidationError"
                else ErrorCode.PLUGIN_ERROR, f"{name}: {exc}",
                f"Check the {name} tool's arguments."))
        return flight.serve(response)

    def compact(self, event: CompactionEvent, *, session_id: str | None = None,
                connection_id: str | None = None) -> str:
        """Build the compaction summary from every plugin's contribution and announce it."""
        session = self.session(session_id, connection_id)
        results, failures = self.pm.call_isolated("on_compaction",
                                                  {"event": event, "session": session})
        for failure in failures:
            log.error("plugin %s failed in on_compaction: %s", failure.plugin, failure.error)
        contributions = sorted(results, key=lambda item: item[0])
        base = next((c.summary for _, c in contributions if c.summary), "")
        extra = [line for _, c in contributions for line in c.lines]
        summary = _insert_lines(base, extra)
        self.announce("on_compaction_complete",
                        {"event": event, "summary": summary, "session": session})
        return summary

    def fire_tier_entry(self, entry: TierEntry, session: Session) -> None:
        """Announce that an item entered a prompt-cache tier (``on_tier_entry``)."""
        self.announce("on_tier_entry", {"entry": entry, "session": session})

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.announce("on_kernel_shutdown", {"kernel": self})
        self.analytics.close()
        self.engine.close()

    def __enter__(self) -> Kernel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _insert_lines(base: str, lines: list[str]) -> str:
    """Put contributed lines before the honesty block, so it stays last."""
    if not lines:
        return base
    if not base:
        return "\n".join(lines)
    marker = "BE HONEST:"
    parts = base.split("\n")
    index = next((i for i, line in enumerate(parts) if line.startswith(marker)), len(parts))
    return "\n".join(parts[:index] + lines + parts[index:])

