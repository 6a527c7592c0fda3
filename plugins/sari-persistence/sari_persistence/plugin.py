"""The sari-persistence plugin: wires the execution log into the kernel's hooks."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sari_core import (
    CallRecord,
    ClientHookEvent,
    ClientHookResult,
    Command,
    CompactionContribution,
    CompactionEvent,
    DoctorCheck,
    Plugin,
    Session,
    SettingsSpec,
    SettingsStore,
    ToolSpec,
    canonical_root,
    hookimpl,
)
from sari_persistence.exit_flush import install_sigterm_flush
from sari_persistence.records import ExecutionRecord, MetricsRecord, now_ms
from sari_persistence.schema import ExecutionLogUnavailable
from sari_persistence.settings import SECTION, PersistenceSettings
from sari_persistence.store import ExecutionStore, open_store, store_compaction
from sari_persistence.tool import tool_spec

if TYPE_CHECKING:
    import argparse

    from sari_core import KernelView

# The compaction summary, the Claude Code hooks and the `sari log` command are imported when
# they run: every `sari` call loads this plugin, and most use none of them (a third of its
# import time).

log = logging.getLogger(__name__)


# Lines other plugins contribute go before the honesty block, so it stays last.
HONESTY_MARKER = "BE HONEST:"


class PersistencePlugin(Plugin):
    """Durable execution log, chat frames, compaction summaries, ``context_query``."""

    name = "persistence"
    # The `sari hook` events answered by on_client_hook (`sari install --hooks` reads it).
    client_hook_events = frozenset({("claude-code", "pre-compact"),
                                    ("claude-code", "session-start")})

    def __init__(self) -> None:
        self.store: ExecutionStore | None = None
        self.settings: PersistenceSettings | None = None
        self.unavailable: str | None = None
        self._metrics_to_sqlite = False

    # --- registration -------------------------------------------------------------------

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=PersistenceSettings)

    @hookimpl
    def sari_register_tools(self) -> list[ToolSpec]:
        return [tool_spec(lambda: self.store, lambda: self.unavailable)]

    @hookimpl
    def sari_register_commands(self) -> list[Command]:
        return [Command("log", "Show the execution log: sessions, a session's executions and "
                        "frames, JSON-lines export.", _configure_log, _run_log)]

    @hookimpl
    def sari_doctor_checks(self, workspace: Path) -> list[DoctorCheck]:
        from sari_persistence import doctor

        return doctor.checks(workspace)

    # --- lifecycle ----------------------------------------------------------------------

    @hookimpl
    def on_kernel_start(self, kernel: KernelView) -> None:
        settings: PersistenceSettings = kernel.settings.get(SECTION)
        self.settings = settings
        self._metrics_to_sqlite = settings.session_metrics_backend == "sqlite"
        try:
            self.store = open_store(settings)
        except ExecutionLogUnavailable as exc:
            # The server keeps serving; context_query and `sari log` report why.
            self.unavailable = str(exc)
            log.error("sari-persistence: recording is off: %s", exc)
            return
        if settings.install_sigterm_handler:
            install_sigterm_flush()

    @hookimpl
    def on_kernel_shutdown(self, kernel: KernelView) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    # --- recording ----------------------------------------------------------------------

    @hookimpl
    def on_call_complete(self, record: CallRecord, session: Session) -> None:
        store = self.store
        if store is None or self.settings is None:
            return
        # Only references cross to the writer thread: serialising happens there.
        if self.settings.record_executions:
            # A client's own tool run through the policies by its hook is marked as such.
            native = getattr(record, "native", None)
            store.submit(ExecutionRecord(record, session.session_id,
                                         f"native:{native}" if native else "sari"))
        if self._metrics_to_sqlite:
            snapshot = _metrics_snapshot(record.response)
            store.submit(MetricsRecord(record.session_key, record.ok, snapshot, now_ms()))

    # --- compaction ---------------------------------------------------------------------

    @hookimpl
    def on_compaction(self, event: CompactionEvent, session: Session) -> CompactionContribution:
        from sari_persistence.compaction import project_root_of, summary_with_log

        settings: PersistenceSettings = session.settings(SECTION)
        default_root = canonical_root(session.roots[0]) if session.roots else None
        store = self.store
        if store is not None:
            store.flush()
            try:
                with store.reading() as conn:
                    root = project_root_of(conn, event.chat_session_id, default_root)
                    summary = summary_with_log(conn, event.frames, event.retained, root, settings)
                return CompactionContribution(summary=summary, insert_before=HONESTY_MARKER)
            except ExecutionLogUnavailable as exc:
                log.warning("sari-persistence: the summary is built without the log: %s", exc)
        summary = summary_with_log(None, event.frames, event.retained, default_root, settings)
        return CompactionContribution(summary=summary, insert_before=HONESTY_MARKER)

    @hookimpl
    def on_compaction_complete(self, event: CompactionEvent, summary: str,
                               session: Session) -> None:
        store = self.store
        if store is None:
            return
        cap = session.settings(SECTION).max_payload_chars
        compacted = [frame.sequence_index for frame in event.frames]
        retained = [frame.sequence_index for frame in event.retained]
        try:
            store.run_job(lambda conn: store_compaction(conn, event.chat_session_id, compacted,
                                                        retained, summary, cap))
        except ExecutionLogUnavailable as exc:
            log.error("sari-persistence: a compaction of %s was not stored: %s",
                      event.chat_session_id, exc)

    # --- Claude Code --------------------------------------------------------------------

    @hookimpl
    def on_client_hook(self, event: ClientHookEvent) -> ClientHookResult | None:
        if event.client != "claude-code" or event.event not in ("pre-compact", "session-start"):
            return None
        from sari_persistence import claude_code

        settings = _workspace_settings(event.workspace)
        if event.event == "pre-compact":
            claude_code.pre_compact(event.payload, settings, event.workspace)
            return None
        summary = claude_code.session_start(event.payload, settings, event.workspace)
        return ClientHookResult(additional_context=summary) if summary else None


def _configure_log(parser: argparse.ArgumentParser) -> None:
    from sari_persistence import cli

    cli.configure(parser)


def _run_log(args: argparse.Namespace) -> int:
    from sari_persistence import cli

    return cli.run(args)


def _metrics_snapshot(response: dict[str, Any]) -> dict[str, Any]:
    meta = response.get("meta") or {}
    stabilization = meta.get("stabilization") or {}
    snapshot = stabilization.get("metrics_snapshot") or {}
    return dict(snapshot)


def _workspace_settings(workspace: str | None) -> PersistenceSettings:
    """Settings of a hook run: no kernel there, so read the workspace's files directly."""
    store = SettingsStore.load([SettingsSpec(SECTION, PersistenceSettings)],
                               Path(workspace) if workspace else None)
    settings: PersistenceSettings = store.get(SECTION)
    return settings
