"""The sari-otel plugin: OpenTelemetry spans and metrics for every tool call.

Where telemetry goes, first match wins: providers handed to the plugin; the process's
global providers when the program set any (an application embedding Sari, or
``opentelemetry-instrument sari serve``: recorded through the global API, no
``OTEL_*`` needed); providers built from ``OTEL_*`` — installed as the global ones when
Sari's own command line is the program, kept private inside another program, which
stays free to choose its SDK. Otherwise the entry point yields an object with no
per-call hook (nothing runs per call) and OpenTelemetry is never imported. Active, it notes in the call's context
(``ctx.scratch``) while a call runs — when the policies let the engine start and when
it finished (``on_read_enter`` last, ``on_read_exit`` / ``on_search_complete`` first,
``on_mutation``), every policy's answer (pluggy's hook-call monitoring, which sees
each plugin's result), external changes — and when the call
completes (``on_call_complete``) queues the notes for its recording thread, which turns
them into spans and metrics.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sari_core import (
    CallRecord,
    MutationEvent,
    Plugin,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchResult,
    Session,
    current_client_request,
    hookimpl,
)
from sari_otel import global_api, names
from sari_otel.config import telemetry_configured
from sari_otel.notes import Note

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

    from sari_core import CallContext, KernelView

log = logging.getLogger(__name__)

PLUGIN_NAME = "otel"
POLICY_HOOKS = frozenset({"on_read_enter", "on_read_exit", "on_search_complete", "on_mutation"})
DEFAULT_QUEUE_SIZE = 10_000


class DormantOtel(Plugin):
    """What the entry point yields when telemetry is not configured: no per-call hook, no cost."""

    name = PLUGIN_NAME
    active = False

    @hookimpl
    def on_kernel_start(self, kernel: KernelView) -> None:
        log.debug("sari-otel: dormant (no global providers set, no OTEL_* exporter or "
                  "endpoint configured)")


class OtelPlugin(Plugin):
    """Spans and metrics per tool call.

    :param tracer_provider: where spans go; by default the global provider the program
        set, else one built from ``OTEL_*``.
    :param meter_provider: where metrics go; likewise.
    :param environ: the environment to read (default ``os.environ``).
    :param queue_size: finished calls waiting for the recording thread at most; beyond
        that, telemetry is dropped rather than calls slowed.

    With neither provider given, none set globally and no telemetry configured in the
    environment, constructing it returns a :class:`DormantOtel` instead.
    """

    name = PLUGIN_NAME
    active = True

    def __new__(cls, tracer_provider: TracerProvider | None = None,
                meter_provider: MeterProvider | None = None,
                environ: Mapping[str, str] | None = None,
                queue_size: int = DEFAULT_QUEUE_SIZE) -> Any:
        if tracer_provider is None and meter_provider is None \
                and not global_api.host_providers_set() \
                and not telemetry_configured(os.environ if environ is None else environ):
            return DormantOtel()
        return super().__new__(cls)

    def __init__(self, tracer_provider: TracerProvider | None = None,
                 meter_provider: MeterProvider | None = None,
                 environ: Mapping[str, str] | None = None,
                 queue_size: int = DEFAULT_QUEUE_SIZE) -> None:
        from sari_otel.recorder import CallRecorder

        self._owned: list[Any] = []
        if tracer_provider is not None or meter_provider is not None:
            self.recorder = CallRecorder.of_providers(tracer_provider, meter_provider)
            self.destination = "given providers"
        elif global_api.host_providers_set():
            self.recorder = CallRecorder.global_api()
            self.destination = ("global providers configured from OTEL_*"
                                if global_api.installed_by_sari
                                else "the program's global providers")
        else:
            from sari_otel import providers

            env = os.environ if environ is None else environ
            tracer_provider = providers.tracer_provider(env)
            meter_provider = providers.meter_provider(env)
            self._owned = [p for p in (tracer_provider, meter_provider) if p is not None]
            if global_api.sari_is_the_program():
                global_api.install(tracer_provider, meter_provider)
                self.recorder = CallRecorder.global_api()
                self.destination = "global providers configured from OTEL_*"
            else:
                self.recorder = CallRecorder.of_providers(tracer_provider, meter_provider)
                self.destination = "providers of its own, from OTEL_*"
        from sari_otel.background import RecordingThread

        self.thread = RecordingThread(queue_size)
        self._stop_watching: Callable[[], None] | None = None

    def flush(self) -> None:
        """Wait until every finished call's telemetry is handed to the providers."""
        self.thread.flush()

    # --- notes of the running call, kept in its context -----------------------------------

    @staticmethod
    def _note(ctx: CallContext, kind: str, engine: str = "", **attributes: Any) -> None:
        notes = ctx.scratch.get(PLUGIN_NAME)
        if notes is None:
            notes = ctx.scratch[PLUGIN_NAME] = []
        notes.append(Note(time.time_ns(), kind, attributes, engine))

    def _hook_called(self, outcome: Any, hook_name: str, impls: Sequence[Any],
                     kwargs: Mapping[str, Any]) -> None:
        """pluggy's call monitoring, after each hook call: note every policy's answer."""
        if hook_name not in POLICY_HOOKS or outcome.exception is not None:
            return
        ctx = kwargs.get("ctx")
        if ctx is None:
            return
        for answer in outcome.get_result() or ():
            if answer.failure:
                self._note(ctx, "verdict", **{
                    names.POLICY_NAME: answer.plugin, names.POLICY_HOOK: hook_name,
                    names.POLICY_ACTION: "error", names.POLICY_REASON_CODES: ["PLUGIN_ERROR"],
                    names.POLICY_ERROR_CODE: "PLUGIN_ERROR"})
                continue
            verdict = answer.value
            action = getattr(verdict, "action", None)
            if not isinstance(action, str):
                continue
            attributes: dict[str, Any] = {
                names.POLICY_NAME: answer.plugin, names.POLICY_HOOK: hook_name,
                names.POLICY_ACTION: action,
                names.POLICY_REASON_CODES: list(verdict.reason_codes),
            }
            if action == "block":  # the refusal's code, as the fold defaults it
                attributes[names.POLICY_ERROR_CODE] = verdict.error_code or (
                    verdict.reason_codes[0] if verdict.reason_codes else "BLOCKED")
            self._note(ctx, "verdict", **attributes)

    # --- lifecycle ------------------------------------------------------------------

    @hookimpl
    def on_kernel_start(self, kernel: KernelView) -> None:
        log.info("sari-otel: recording into %s", self.destination)
        self._stop_watching = kernel.watch_hook_calls(_ignore_call, self._hook_called)

    @hookimpl
    def on_kernel_shutdown(self, kernel: KernelView) -> None:
        if self._stop_watching is not None:
            self._stop_watching()
            self._stop_watching = None
        self.thread.close()
        for provider in self._owned:
            provider.shutdown()

    @hookimpl
    def on_session_start(self, session: Session) -> None:
        session.namespace(PLUGIN_NAME, time.monotonic)
        self.thread.submit(self.recorder.session_started)

    @hookimpl
    def on_session_end(self, session: Session) -> None:
        started = session.existing_namespace(PLUGIN_NAME)
        if isinstance(started, float):
            self.thread.submit(self.recorder.session_ended, time.monotonic() - started)

    # --- brackets around the engine's part of a call -------------------------------------

    @hookimpl(trylast=True)
    def on_read_enter(self, ctx: CallContext) -> None:
        self._note(ctx, "engine_start", "read")

    @hookimpl(tryfirst=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, ctx: CallContext) -> None:
        # Before any policy rewrites the text: what the engine read.
        self._note(ctx, "engine_end", "read", **{
            names.READ_MODE: call.mode, names.READ_BYTES: len(result.text.encode("utf-8")),
            names.READ_LINES: result.lines_returned})

    @hookimpl(tryfirst=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           ctx: CallContext) -> None:
        self._note(ctx, "engine_end", "search", **{
            names.SEARCH_KIND: result.kind, names.SEARCH_HITS: result.total,
            names.SEARCH_RETURNED: len(result.matches),
            names.INDEX_STATE: "ready" if result.index_ready else "building"})

    @hookimpl(trylast=True)
    def on_mutation(self, event: MutationEvent, ctx: CallContext) -> None:
        if event.source == "external":
            self._note(ctx, "external", "", **{names.CHANGED_PATHS: list(event.paths)})
        elif event.phase == "before":
            self._note(ctx, "engine_start", "write")
        else:
            self._note(ctx, "engine_end", "write", **{names.WRITE_PATHS: len(event.paths)})

    @hookimpl
    def on_call_complete(self, record: CallRecord, session: Session, ctx: CallContext) -> None:
        notes = ctx.scratch.get(PLUGIN_NAME) or []
        request = current_client_request()
        # The parent is decided here, where the caller's context is current; the spans are
        # built on the recording thread.
        parent = self.recorder.parent_of(request)
        nested = self.recorder.inside_server_span(parent, record.tool)
        self.thread.submit(self.recorder.record, record, session.connection_id, request,
                           parent, notes, nested)


def _ignore_call(hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """pluggy's call monitoring wants a "before" function too; nothing is needed there."""
