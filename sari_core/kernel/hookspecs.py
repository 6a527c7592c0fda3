"""Every hook the Sari kernel calls, grouped by subject.

Every hook is called as ``pm.hook.<name>(...)`` (the manager's typed methods), so
pluggy runs it, once per plugin, in its order — ``tryfirst`` impls, then plain ones,
then ``trylast``. Installed plugins are registered in reverse name order, so within
each group they run by plugin name whatever order they were installed in, and results
are reproducible. A plugin that raises is isolated: in a policy hook its failure becomes a
``PLUGIN_ERROR`` reason naming it. Hook wrappers are refused at registration.

An implementation declares only the arguments it uses: ``def on_read_enter(self,
call, ctx)`` is as valid as the full signature. Policy hooks and
``on_call_complete`` get the call's :class:`~sari_core.kernel.context.CallContext`
(``ctx``): its id, tool, session and a scratch space living from the first policy
hook of the call to ``on_call_complete``.

Registration hooks (``sari_register_*``) are called once at kernel start (or CLI
start) and only return values; the kernel collects them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from pathlib import Path

    from sari_core.kernel.analytics import AnalyticsSink
    from sari_core.kernel.commands import Command, DoctorCheck
    from sari_core.kernel.context import CallContext
    from sari_core.kernel.reasons import ReasonCodeSpec
    from sari_core.kernel.sessions import Session
    from sari_core.kernel.settings import SettingsSpec
    from sari_core.kernel.stabilization import StabilizationField
    from sari_core.kernel.tools import ToolSpec
    from sari_core.kernel.verdicts import Verdict
    from sari_core.kernel.view import KernelView
    from sari_core.models import (
        CallRecord,
        ClientHookEvent,
        ClientHookResult,
        CompactionContribution,
        CompactionEvent,
        MutationEvent,
        ReadCall,
        ReadResult,
        SearchCall,
        SearchResult,
        TierEntry,
    )

PROJECT_NAME = "sari"
_hookspec = pluggy.HookspecMarker(PROJECT_NAME)


# --- registration -------------------------------------------------------------------


@_hookspec
def sari_register_reason_codes() -> list[ReasonCodeSpec]:
    """Contribute reason codes beyond the kernel's enum.

    Called once when the kernel starts. Codes must be unique across plugins
    (prefix them); a clash is a startup error naming both plugins.

    :return: the plugin's reason code specs (code, description, severity,
        next-call template, rank). Results of all plugins are concatenated;
        responses order codes by (rank, code), never by load order.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


@_hookspec
def sari_register_stabilization_fields() -> list[StabilizationField]:
    """Publish annotation keys at the top level of ``meta.stabilization``.

    Called once when the kernel starts. A registered key (``budget_state``,
    ``bundle_id``...) is lifted out of every plugin's annotations to the top of the
    block, with the field's default when no plugin set it.

    :return: the plugin's :class:`~sari_core.kernel.stabilization.StabilizationField` s.
        Concatenated over plugins; one key registered differently by two plugins is a
        startup error naming both.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


@_hookspec
def sari_register_settings() -> SettingsSpec | None:
    """Declare the plugin's settings section and its pydantic model.

    Values are read from ``[tool.sari.<section>]`` in the workspace's
    ``pyproject.toml``, from ``sari.toml`` (``[<section>]``), and from environment
    variables ``SARI_<SECTION>__<FIELD>``; an invalid value stops the kernel with
    an error naming the key.

    :return: a :class:`~sari_core.kernel.settings.SettingsSpec`, or None if the plugin has
        no settings. One spec per plugin; sections must be unique.
    """


@_hookspec
def sari_register_tools() -> list[ToolSpec]:
    """Contribute MCP tools beyond ``search``, ``read``, ``edit`` and ``write``.

    :return: tool specs (name, description, pydantic input model, handler).
        Concatenated over plugins; a name clash is a startup error.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


@_hookspec
def sari_register_commands() -> list[Command]:
    """Contribute ``sari`` CLI subcommands (``sari log``, ``sari gate``...).

    :return: :class:`~sari_core.kernel.commands.Command` s (name, help, configure, run).
        Concatenated over plugins; a name clash with another command is a startup error.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


@_hookspec
def sari_register_analytics_sinks(kernel: KernelView) -> list[AnalyticsSink]:
    """Contribute sinks that the analytics writer thread drains events into.

    :param kernel: what a plugin sees of the kernel being started (its settings, roots,
        workspace hash): a :class:`~sari_core.kernel.view.KernelView`, not the kernel.
    :return: sinks; concatenated over plugins, added after the default JSON-lines sink.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


# --- lifecycle ----------------------------------------------------------------------


@_hookspec
def on_kernel_start(kernel: KernelView) -> None:
    """The kernel finished loading plugins and settings and is about to serve.

    Start background resources here (language servers, writer threads).

    :param kernel: what a plugin sees of the started kernel
        (:class:`~sari_core.kernel.view.KernelView`: roots, engine, settings, live sessions).
    :return: nothing; every plugin is called, failures are logged and isolated.
    """


@_hookspec
def on_kernel_shutdown(kernel: KernelView) -> None:
    """The kernel is shutting down: flush and release resources.

    :param kernel: what a plugin sees of the kernel being closed (a
        :class:`~sari_core.kernel.view.KernelView`).
    :return: nothing; every plugin is called, failures are logged and isolated.
    """


@_hookspec
def on_session_start(session: Session) -> None:
    """The first call of a session key arrived.

    :param session: the new session.
    :return: nothing; every plugin is called.
    """


@_hookspec
def on_session_end(session: Session) -> None:
    """A session ended: evicted by LRU or TTL, or closed by its connection.

    :param session: the session going away; its runtime state is discarded after this.
    :return: nothing; every plugin is called.
    """


@_hookspec
def on_call_complete(record: CallRecord, session: Session, ctx: CallContext) -> None:
    """A tool call finished — served or refused — and its response is about to leave.

    The execution log's single source: every ``search``, ``read``, ``edit``,
    ``write`` and plugin tool call fires it exactly once, refusals included.

    :param record: tool, arguments, outcome, reason codes, error code, duration and
        the response object (do not mutate it).
    :param session: the session.
    :param ctx: the call's context, the same object its policy hooks saw; its
        ``scratch`` is dropped after this hook.
    :return: nothing; every plugin is called. Keep it cheap: hand work to a thread.
    """


@_hookspec
def sari_collect_metrics(session: Session, ctx: CallContext | None) -> dict[str, Any] | None:
    """Contribute to ``meta.stabilization.metrics_snapshot`` of a response.

    :param session: the session the response belongs to.
    :param ctx: the call being answered, or None when a plugin tool asks outside a call.
    :return: a flat dict of metric name -> JSON value, or None. Dicts of all plugins
        are merged by plugin name and sorted by key; prefix keys with the plugin's name:
        a key another plugin already returned is a clash, logged as an error naming
        both, and the first plugin's value is kept.
    """


# --- policy: reads ------------------------------------------------------------------


@_hookspec
def on_read_enter(call: ReadCall, session: Session, ctx: CallContext) -> Verdict | None:
    """A read is about to be served, after argument validation.

    :param call: the validated read (any mode, any entrypoint; ``call.entrypoint``
        names the tool the client used).
    :param session: the session the read belongs to.
    :param ctx: the call's context (id, tool, session, call-scoped ``scratch``).
    :return: None to allow silently, or a :class:`~sari_core.kernel.verdicts.Verdict`:
        ``block`` refuses the read, ``warn`` attaches a warning, ``narrow`` clamps
        request fields (``Verdict.narrow(code, to={"limit": 300})``). Verdicts of all plugins
        are folded: any block wins, narrowed fields take the minimum, reason codes are
        de-duplicated and ordered by the registry.
    """


@_hookspec
def on_read_exit(call: ReadCall, result: ReadResult, session: Session, ctx: CallContext
                 ) -> Verdict | None:
    """A read was served by the engine; the response has not left yet.

    Plugins may rewrite ``result.text`` (trim to a cap, replace already-delivered
    lines by a reference) and must then set ``result.preview_degraded`` or
    ``result.extra`` accordingly. Installed plugins run in pluggy's order
    (``tryfirst``, plain, ``trylast``; by name within each), so rewrites compose
    reproducibly.

    :param call: the read as served (after narrowing).
    :param result: the engine's result, mutable.
    :param session: the session.
    :param ctx: the call's context, the same object ``on_read_enter`` saw.
    :return: None or a verdict (folded as for ``on_read_enter``). A block here
        withholds the payload.
    """


# --- policy: search -----------------------------------------------------------------


@_hookspec
def on_search_complete(call: SearchCall, result: SearchResult, session: Session,
                       ctx: CallContext) -> Verdict | None:
    """A search finished; the response has not left yet.

    Plugins may annotate ``result.matches`` (set ``candidate_id``), remember the
    top-K for later reads, and return ``next_calls``.

    :param call: the search as run.
    :param result: the ranked matches, mutable.
    :param session: the session.
    :param ctx: the call's context.
    :return: None or a verdict, folded as for ``on_read_enter``.
    """


# --- navigation ---------------------------------------------------------------------


@_hookspec(firstresult=True)
def sari_navigate(call: SearchCall, session: Session) -> SearchResult | None:
    """Answer a navigation search exactly, in place of the index's name-based answer.

    Called for ``search`` with ``kind`` ``references``, ``callers`` or
    ``implementations``, before the engine. A plugin with a semantic source (a running
    language server) resolves the name and answers; the engine answers when every
    plugin returns None.

    :param call: the validated search (``call.kind`` is one of the three).
    :param session: the session (for the plugin's settings and roots).
    :return: None to let the next plugin or the engine answer, or a
        :class:`~sari_core.models.SearchResult` whose ``extra["precision"]`` names its
        source (e.g. ``"exact:basedpyright"``) and whose matches carry ``scope`` and
        ``scope_lines`` where known. The first plugin (pluggy's order) answering wins;
        ``on_search_complete`` then runs on it as on any result.
    """


@_hookspec
def sari_navigation_languages() -> list[str]:
    """Name the languages whose navigation this plugin answers exactly (for ``sari doctor``).

    :return: language names as the engine spells them (``python``, ``go``...), for the
        servers the plugin would start and can find. Concatenated over plugins.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


@_hookspec
def sari_doctor_checks(workspace: Path) -> list[DoctorCheck]:
    """Check what this plugin depends on outside Sari (a database, a service), for
    ``sari doctor``; called without a kernel.

    :param workspace: the workspace ``sari doctor`` checks (its settings apply).
    :return: :class:`~sari_core.kernel.commands.DoctorCheck` s, printed after the core's.
        Concatenated over plugins; one that raises is reported as an ``error`` naming it.
    """
    raise NotImplementedError  # a spec: pluggy calls the implementations, never this


# --- policy: mutations --------------------------------------------------------------


@_hookspec
def on_mutation(event: MutationEvent, session: Session, ctx: CallContext) -> Verdict | None:
    """A file in the workspace is about to change, has changed, or was seen changed.

    Called with ``event.phase == "before"`` ahead of Sari's own ``edit``/``write``
    (a ``block`` vetoes it), and with ``"after"`` once the change is on disk — for
    Sari's writes (``source="sari"``) and for changes made outside Sari and noticed
    by the kernel (``source="external"``, ``tool="external"``).

    :param event: the change(s), with old and new text.
    :param session: the session the mutation belongs to (for external changes, the
        session whose call noticed it).
    :param ctx: the context of the call the event belongs to (for external changes,
        the call that noticed them).
    :return: None or a verdict. Before: folded, any block vetoes. After: folded into
        the response's ``meta.stabilization`` (a block after the write is reported as
        a gate state, the write stays).
    """


# --- policy: compaction -------------------------------------------------------------


@_hookspec
def on_compaction(event: CompactionEvent, session: Session) -> CompactionContribution | None:
    """A conversation is being compacted; contribute to its summary.

    :param event: the frames leaving the window and those retained.
    :param session: the session.
    :return: None or a contribution. The base ``summary`` comes from the first
        plugin by name that provides one; ``lines`` of all plugins are added in
        plugin-name order, before the base's first line starting with its
        ``insert_before`` prefix, else at the end.
    """


@_hookspec
def on_compaction_complete(event: CompactionEvent, summary: str, session: Session) -> None:
    """The compaction summary is final; store or forward it.

    :param event: the compaction.
    :param summary: the exact summary text returned to the client.
    :param session: the session.
    :return: nothing; every plugin is called.
    """


# --- policy: prompt-cache tiers -----------------------------------------------------


@_hookspec
def on_tier_entry(entry: TierEntry, session: Session) -> None:
    """An item entered a prompt-cache tier (or returned to Active).

    :param entry: the item, the tier it entered, its N value and why.
    :param session: the session whose round caused it.
    :return: nothing; observers only (log, metrics, react). Every plugin is called.
    """


# --- client integrations ------------------------------------------------------------


@_hookspec
def on_client_hook(event: ClientHookEvent) -> ClientHookResult | None:
    """A coding client ran one of its own hooks through ``sari hook <client> <event>``.

    Lets policies act on clients that use their own edit tools (Claude Code's
    ``PostToolUse`` after Edit/Write, ``PreCompact``, ``SessionStart``...).

    The client runs the command in a process of its own on each of its tool calls, so a
    plugin declares in its package metadata the events it answers, and is imported only
    for those: in the ``sari.client_hooks`` entry-point group, one entry
    ``NAME.CLIENT.EVENT`` per event (``lspgate.claude-code.post-tool-use``), or ``NAME``
    alone for none, each valued as its ``sari`` entry point. A plugin that declares nothing
    is imported and called for every event.

    :param event: the client, the hook event name, the JSON payload it sent on stdin
        and the workspace it runs in.
    :return: None, or a result: ``block`` with a ``reason`` asks the client to stop
        (any block wins; reasons are joined in plugin-name order);
        ``additional_context`` texts are joined in plugin-name order.
    """


_SPECS = (
    sari_register_reason_codes, sari_register_stabilization_fields, sari_register_settings,
    sari_register_tools,
    sari_register_commands, sari_register_analytics_sinks,
    on_kernel_start, on_kernel_shutdown, on_session_start, on_session_end, on_call_complete,
    sari_collect_metrics, on_read_enter, on_read_exit, on_search_complete, sari_navigate,
    sari_navigation_languages, on_mutation,
    on_compaction, on_compaction_complete, on_tier_entry, on_client_hook,
)
HOOK_NAMES: tuple[str, ...] = tuple(spec.__name__ for spec in _SPECS)
"""Every hook name, in the order this module documents them."""


def spec_docstrings() -> dict[str, str]:
    """Hook name -> docstring, for the generated reference and its drift tests."""
    return {spec.__name__: spec.__doc__ or "" for spec in _SPECS}
