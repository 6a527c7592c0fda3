"""The kernel: runs every call through the hook pipeline around an engine call.

``Kernel.execute_read`` / ``execute_search`` / ``execute_mutation`` / ``compact``
are the entry points the MCP server, the CLI and library users call. Each one
resolves the session, raises changes seen on disk, asks the policies
(``on_*`` hooks), folds their verdicts, calls the engine, and returns the
contract's response object — never raising for a refusal. All four share one
prologue (:meth:`Kernel._run`): open the call and its context, notice changes
made on disk, run the body, and turn a raised refusal into its response.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sari_core import arguments, responses
from sari_core.engine_protocol import Engine, KeepsFileModes
from sari_core.errors import ErrorCode, SariError
from sari_core.kernel.analytics import AnalyticsQueue, AnalyticsSink, JsonLinesSink
from sari_core.kernel.calls import Call, CallBlocked, narrowed
from sari_core.kernel.core_settings import CoreSettings
from sari_core.kernel.identity import SessionIdentity, operator_identity
from sari_core.kernel.local_policies import GUARD_NAME, PolicyFolderGuard, load_local_policies
from sari_core.kernel.manager import SariPluginManager, plugin_name
from sari_core.kernel.own_folders import GUARD_NAME as OWN_FOLDERS_GUARD
from sari_core.kernel.own_folders import OwnFoldersGuard, own_folders, reachable_folders
from sari_core.kernel.policy_folder import plugins_dir
from sari_core.kernel.reasons import ReasonCode, ReasonRegistry
from sari_core.kernel.sessions import (
    RuntimeStateStore,
    Session,
    SessionState,
    new_connection_id,
    resolve_session_key,
    strict_session_mode,
    workspace_hash,
)
from sari_core.kernel.settings import SettingsSpec, SettingsStore, settings_notice
from sari_core.kernel.spelling import read_as_named
from sari_core.kernel.stabilization import StabilizationFields
from sari_core.kernel.tools import ToolSpec
from sari_core.kernel.verdicts import FoldedVerdict
from sari_core.kernel.view import KernelView
from sari_core.locations import state_dir
from sari_core.models import CompactionEvent, MutationEvent, ReadCall

log = logging.getLogger(__name__)

CORE_SECTION = "core"
NAVIGATION_KINDS = frozenset({"references", "callers", "implementations"})


class Kernel:
    """The policy pipeline around one workspace engine.

    :param engine: the workspace engine; by default :class:`sari_core.engine.Workspace`
        over ``roots``, keeping out the paths the ``exclude`` setting names (a user's or
        environment value that is not a list of strings raises ``ExcludeError``).
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
            from sari_core.engine.exclusions import configured_excludes

            folders = [Path(root) for root in roots] or [Path.cwd()]
            # The exclude setting, as sari serve and the CLI read it, for an embedding too.
            engine = Workspace(folders, exclude=configured_excludes(folders[0], environ))
        self.engine = engine
        self.roots: list[Path] = list(engine.roots)
        self.workspace_hash = workspace_hash(self.roots[0])
        self.pm = SariPluginManager()
        self.view = KernelView(self)
        if builtins:
            from sari_core.kernel.builtin import register_builtins

            register_builtins(self.pm)
        if load_entry_points:
            self.pm.load_entry_points(listing=False)
        reachable = reachable_folders(self.roots, own_folders(roots=self.roots))
        if reachable:  # a root holds (or lies in) Sari's own folders: keep its tools out
            self.pm.register(OwnFoldersGuard(self.roots, reachable), name=OWN_FOLDERS_GUARD)
        policy_folder = plugins_dir(workspaces=self.roots)
        if policy_folder is not None:
            # The operator's folder: its policies load with the installed plugins, and the
            # guard keeps Sari's own writes out of it whether or not they load.
            self.pm.register(PolicyFolderGuard(policy_folder), name=GUARD_NAME)
            if load_entry_points:
                load_local_policies(self.pm, policy_folder)
        for plugin in plugins:
            self.pm.register(plugin, name=plugin_name(plugin))
        self.pm.check_pending()

        self.reasons = ReasonRegistry.with_kernel_codes()
        for owner, spec in self.pm.reason_codes():
            self.reasons.register(spec, owner=owner)
        self.fields = StabilizationFields()
        for owner, field in self.pm.stabilization_fields():
            self.fields.register(field, owner=owner)
        specs = [SettingsSpec(CORE_SECTION, CoreSettings), *self.pm.settings_specs()]
        self.settings = SettingsStore.load(specs, self.roots[0], settings, environ,
                                           other_roots=self.roots[1:])
        self.core: CoreSettings = self.settings.get(CORE_SECTION)
        # What was ignored in the workspace's config, said once, in the first call's answer.
        self._settings_notice: str | None = settings_notice(self.settings.notices)
        if isinstance(self.engine, KeepsFileModes):  # an engine that writes files
            self.engine.keep_executable_bits = self.core.keep_executable_bits
        self.pm.reasons = self.reasons
        self.pm.fail_closed = frozenset(self.core.fail_closed_plugins)
        self.tools: dict[str, ToolSpec] = self.pm.tools()

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
        self.pm.kernel_start(self.view)

    # --- construction helpers -------------------------------------------------------

    def _default_sinks(self) -> list[AnalyticsSink]:
        sinks: list[AnalyticsSink] = []
        if self.core.analytics_enabled:
            sinks.append(JsonLinesSink(state_dir() / "analytics" / f"{self.workspace_hash}.jsonl"))
        sinks.extend(self.pm.analytics_sinks(self.view))
        return sinks

    # --- sessions -------------------------------------------------------------------

    def session(
        self,
        session_id: str | None = None,
        connection_id: str | None = None,
        client_connection_id: str | None = None,
        scope: str | None = None,
    ) -> Session:
        """Resolve (and create on first use) the session a call belongs to.

        :param session_id: the session the operator or the client program names (never a
            model's argument: :mod:`sari_core.kernel.identity` decides which is which).
        :param scope: a narrower label inside the session; it never keys state of its own.
        :raises SessionIdRequired: in strict mode when neither a session nor a scope is named.
        """
        connection = connection_id or self.default_connection_id
        key = resolve_session_key(
            session_id=session_id, connection_id=connection, ws_hash=self.workspace_hash,
            strict=self._strict_sessions and not scope,
        )
        state, created = self.sessions.get(key)
        session = Session(key, session_id, connection, state, self, client_connection_id,
                          scope=scope)
        if created:
            self.pm.session_start(session)
        return session

    def plugin(self, name: str) -> object | None:
        """The plugin registered as ``name`` (its entry point's name), or None: for a
        plugin's own library API, handed the kernel by an embedding program."""
        return self.pm.get_plugin(name)

    def live_sessions(self) -> Iterator[Session]:
        """Every session still held, e.g. for plugins saving state at shutdown."""
        for key in self.sessions.keys():  # noqa: SIM118 - a store, not a dict
            state = self.sessions.peek(key)
            if state is not None:
                yield Session(state.key, None, "", state, self)

    def _end_session(self, state: SessionState) -> None:
        self.pm.session_end(Session(state.key, None, "", state, self))

    def end_connection(self, connection_id: str) -> None:
        """A connection closed: end the sessions keyed by it."""
        suffix = f":conn:{connection_id}"
        for key in list(self.sessions.keys()):
            if key.endswith(suffix):
                state = self.sessions.discard(key)
                if state is not None:
                    self._end_session(state)

    # --- the pipeline ---------------------------------------------------------------

    def _external_changes(self, flight: Call) -> FoldedVerdict | None:
        changes = self.engine.poll_changes()
        if not changes:
            return None
        assert flight.session is not None and flight.ctx is not None
        event = MutationEvent(phase="after", source="external", tool="external",
                              changes=changes, applied=True)
        folded = self.pm.mutation(event, flight.session, flight.ctx)
        return replace(folded, reason_codes=self.reasons.order(
            [*folded.reason_codes, ReasonCode.EXTERNAL_CHANGE]))

    def _run(self, tool: str, raw: Mapping[str, Any], kind: dict[str, Any],
             connection_id: str | None, body: Callable[[Call], dict[str, Any]], *,
             watch_disk: bool = True, identity: SessionIdentity | None = None
             ) -> dict[str, Any]:
        """The prologue every tool call shares, and the turn of a raised refusal into a response.

        :param body: serves the call and returns its response; it ends the call early by
            raising ``SariError`` (argument or engine refusal) or through ``Call.block``.
        :param watch_disk: notice changes made on disk before the body runs.
        :param identity: whose session the call is, as its transport and client say (see
            :mod:`sari_core.kernel.identity`); None for a program the operator runs, whose
            ``session_id`` argument then names the session.
        """
        flight = Call(self, tool, raw, kind, f"ex-{self._execution_prefix}-{next(self._sequence)}")
        try:
            flight.open(identity or operator_identity(raw, connection_id))
            if watch_disk:
                flight.folded = self._external_changes(flight) or flight.folded
            notice, self._settings_notice = self._settings_notice, None
            if notice:
                flight.folded = flight.folded.merge(FoldedVerdict(warnings=[notice]),
                                                    self.reasons)
            return flight.serve(body(flight))
        except CallBlocked as blocked:
            return flight.blocked(blocked.folded)
        except SariError as exc:
            return flight.refused(exc)

    def execute_read(self, args: Mapping[str, Any] | ReadCall, *, connection_id: str | None = None,
                     entrypoint: str = "read", identity: SessionIdentity | None = None
                     ) -> dict[str, Any]:
        """Serve a ``read`` (or a deprecated wrapper's call, named by ``entrypoint``)."""
        raw = args.model_dump(exclude_none=True) if isinstance(args, BaseModel) else dict(args)
        kind = {"mode": raw.get("mode"), "target": raw.get("target") or raw.get("path")
                or raw.get("name")}

        def serve(flight: Call) -> dict[str, Any]:
            values = raw if entrypoint == "read" else arguments.legacy_read_args(entrypoint, raw)
            call = args if isinstance(args, ReadCall) else arguments.parse_read(values, entrypoint)
            call = read_as_named(self.engine, call)
            flight.kind = {"mode": call.mode, "target": call.target}
            session, ctx = flight.session, flight.ctx
            assert session is not None and ctx is not None
            enter = flight.folded.merge(self.pm.read_enter(call, session, ctx), self.reasons)
            flight.folded = enter
            if enter.blocked:
                flight.block(enter)
            if enter.narrow_to:
                call = narrowed(call, enter.narrow_to)
            result = self.engine.read(call)
            exit_fold = self.pm.read_exit(call, result, session, ctx)
            folded = enter.merge(exit_fold, self.reasons)
            if exit_fold.blocked:
                flight.block(folded)
            return responses.read_response(call, result, folded, flight.metrics(),
                                           flight.execution_id)

        return self._run(entrypoint, raw, kind, connection_id, serve, identity=identity)

    def execute_search(self, args: Mapping[str, Any], *, connection_id: str | None = None,
                       identity: SessionIdentity | None = None) -> dict[str, Any]:
        """Serve a ``search``."""
        raw = dict(args)

        def serve(flight: Call) -> dict[str, Any]:
            call = arguments.parse_search(raw)
            assert flight.session is not None and flight.ctx is not None
            # Navigation: a plugin with a semantic source answers exactly, else the index.
            exact = self.pm.navigate(call, flight.session) \
                if call.kind in NAVIGATION_KINDS else None
            result = exact if exact is not None else self.engine.search(call)
            folded = flight.folded.merge(
                self.pm.search_complete(call, result, flight.session, flight.ctx), self.reasons)
            if not result.index_ready:
                folded = replace(folded, reason_codes=self.reasons.order(
                    [*folded.reason_codes, ReasonCode.INDEX_BUILDING]))
            if folded.blocked:
                flight.block(folded)
            return responses.search_response(result, folded, flight.metrics(),
                                             flight.execution_id)

        kind = {"query": raw.get("query"), "target": raw.get("query")}
        return self._run("search", raw, kind, connection_id, serve, identity=identity)

    def execute_mutation(self, tool: str, args: Mapping[str, Any], *,
                         connection_id: str | None = None,
                         identity: SessionIdentity | None = None) -> dict[str, Any]:
        """Serve an ``edit`` or ``write``: veto check, atomic write, validation."""
        raw = dict(args)

        def serve(flight: Call) -> dict[str, Any]:
            call = arguments.parse_mutation(tool, raw)
            changes = self.engine.plan_mutation(call)
            target = changes[0].path if changes else call.path
            flight.kind = {"tool": tool, "target": target}
            session, ctx = flight.session, flight.ctx
            assert session is not None and ctx is not None
            before = MutationEvent(phase="before", source="sari", tool=call.tool, changes=changes)
            veto = flight.folded.merge(self.pm.mutation(before, session, ctx), self.reasons)
            flight.folded = veto
            if veto.blocked:
                flight.block(veto)
            self.engine.apply_mutation(changes)
            after = MutationEvent(phase="after", source="sari", tool=call.tool, changes=changes,
                                  applied=True)
            folded = veto.merge(self.pm.mutation(after, session, ctx), self.reasons)
            # After the write a block cannot undo it: it is reported as gate state, ok stays.
            payload: dict[str, Any] = {"changes": [responses.change_summary(c) for c in changes]}
            if tool == "edit":
                payload["replacements"] = call.expected_occurrences
            response = responses.tool_response(tool, target, payload, folded, flight.metrics(),
                                               flight.execution_id)
            if folded.blocked:
                response["meta"]["gated"] = {"by": folded.blocked_by, "code": folded.error_code,
                                             "message": folded.message}
            return response

        return self._run(tool, raw, {"tool": tool, "target": raw.get("path")}, connection_id,
                         serve, identity=identity)

    def execute_tool(self, name: str, args: Mapping[str, Any], *,
                     connection_id: str | None = None,
                     identity: SessionIdentity | None = None) -> dict[str, Any]:
        """Serve a plugin-registered tool (``context_query``, ``context_tiers``...)."""
        raw = dict(args)

        def serve(flight: Call) -> dict[str, Any]:
            spec = self.tools.get(name)
            if spec is None:
                raise SariError(ErrorCode.UNKNOWN_TOOL, f"unknown tool {name!r}.",
                                f"Available tools: {', '.join(sorted(self.tools))}.")
            assert flight.session is not None
            try:
                parsed = spec.input_model.model_validate(
                    {k: v for k, v in raw.items() if v is not None})
            except ValidationError as exc:  # name the field: the listing omits some bounds
                raise arguments.validation_error(exc, name) from None
            try:
                response = spec.handler(parsed, flight.session)
            except SariError:
                raise
            except Exception as exc:  # noqa: BLE001 - pydantic errors and plugin bugs refuse
                raise SariError(
                    ErrorCode.INVALID_ARGS if exc.__class__.__name__ == "ValidationError"
                    else ErrorCode.PLUGIN_ERROR, f"{name}: {exc}",
                    f"Check the {name} tool's arguments.") from exc
            # A handler cannot know the call's id: stamp it, so the response and the
            # execution log (on_call_complete) name the same execution.
            if isinstance(response.get("meta"), dict):
                response["meta"]["execution_id"] = flight.execution_id
            return response

        return self._run(name, raw, {"tool": name, "target": None}, connection_id, serve,
                         watch_disk=False, identity=identity)

    def compact(self, event: CompactionEvent, *, session_id: str | None = None,
                connection_id: str | None = None) -> str:
        """Build the compaction summary from every plugin's contribution and announce it."""
        session = self.session(session_id, connection_id)
        summary = self.pm.compaction(event, session)
        self.pm.compaction_complete(event, summary, session)
        return summary

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.pm.kernel_shutdown(self.view)
        self.analytics.close()
        self.engine.close()

    def __enter__(self) -> Kernel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

