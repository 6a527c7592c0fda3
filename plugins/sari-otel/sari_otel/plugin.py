"""The sari-otel plugin: OpenTelemetry spans and metrics for every tool call.

Dormant unless the ``OTEL_*`` environment names an exporter or endpoint: then the
entry point yields an object with no hooks at all (nothing runs per call) and
OpenTelemetry is never imported. Active, it notes while a call runs — when the
policies let the engine start and when it finished (``on_read_enter`` last,
``on_read_exit`` / ``on_search_complete`` first, ``on_mutation``), every policy's
verdict (the kernel's verdict observers), external changes — and when the call
completes (``on_call_complete``) queues the notes for its recording thread, which turns
them into spans and metrics.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sari_core.client_request import current_client_request
from sari_core.models import (
    CallRecord,
    MutationEvent,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchResult,
)
from sari_core.plugin_manager import hookimpl
from sari_core.sessions import Session
from sari_core.verdicts import PluginVerdict
from sari_otel import names
from sari_otel.config import telemetry_configured
from sari_otel.notes import Note

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

    from sari_core.kernel import Kernel

log = logging.getLogger(__name__)

PLUGIN_NAME = "otel"
DEFAULT_QUEUE_SIZE = 10_000


class DormantOtel:
    """What the entry point yields when telemetry is not configured: no per-call hook, no cost."""

    name = PLUGIN_NAME
    active = False

    @hookimpl
    def on_kernel_start(self, kernel: Kernel) -> None:
        log.debug("sari-otel: dormant (no OTEL_* exporter or endpoint configured)")


class OtelPlugin:
    """Spans and metrics per tool call.

    :param tracer_provider: where spans go; by default built from ``OTEL_*``.
    :param meter_provider: where metrics go; by default built from ``OTEL_*``.
    :param environ: the environment to read (default ``os.environ``).
    :param queue_size: finished calls waiting for the recording thread at most; beyond
        that, telemetry is dropped rather than calls slowed.

    With neither provider given and no telemetry configured in the environment,
    constructing it returns a :class:`DormantOtel` instead.
    """

    name = PLUGIN_NAME
    active = True

    def __new__(cls, tracer_provider: TracerProvider | None = None,
                meter_provider: MeterProvider | None = None,
                environ: Mapping[str, str] | None = None,
                queue_size: int = DEFAULT_QUEUE_SIZE) -> Any:
        if tracer_provider is None and meter_provider is None and not telemetry_configured(
                os.environ if environ is None else environ):
            return DormantOtel()
        return super().__new__(cls)

    def __init__(self, tracer_provider: TracerProvider | None = None,
                 meter_provider: MeterProvider | None = None,
                 environ: Mapping[str, str] | None = None,
                 queue_size: int = DEFAULT_QUEUE_SIZE) -> None:
        from sari_otel.recorder import CallRecorder

        self._owned: list[Any] = []
        if tracer_provider is None and meter_provider is None:
            from sari_otel import providers

            env = os.environ if environ is None else environ
            tracer_provider = providers.tracer_provider(env)
            meter_provider = providers.meter_provider(env)
            self._owned = [p for p in (tracer_provider, meter_provider) if p is not None]
        from sari_otel.background import RecordingThread

        self.recorder = CallRecorder(tracer_provider, meter_provider)
        self.thread = RecordingThread(queue_size)
        self._local = threading.local()

    def flush(self) -> None:
        """Wait until every finished call's telemetry is handed to the providers."""
        self.thread.flush()

    # --- notes of the running call (per thread: a call runs in one thread) -------------

    def _notes(self) -> list[Note]:
        notes: list[Note] | None = getattr(self._local, "notes", None)
        if notes is None:
            notes = self._local.notes = []
        return notes

    def _note(self, kind: str, engine: str = "", **attributes: Any) -> None:
        self._notes().append(Note(time.time_ns(), kind, attributes, engine))

    def observe_verdicts(self, hook: str, verdicts: list[PluginVerdict]) -> None:
        """Note every policy's verdict (registered as a kernel verdict observer)."""
        for item in verdicts:
            verdict = item.verdict
            attributes: dict[str, Any] = {
                names.POLICY_NAME: item.plugin, names.POLICY_HOOK: hook,
                names.POLICY_ACTION: verdict.action,
                names.POLICY_REASON_CODES: list(verdict.reason_codes),
            }
            if verdict.action == "block":  # the refusal's code, as the fold defaults it
                attributes[names.POLICY_ERROR_CODE] = verdict.error_code or (
                    verdict.reason_codes[0] if verdict.reason_codes else "BLOCKED")
            self._note("verdict", **attributes)

    # --- lifecycle ------------------------------------------------------------------

    @hookimpl
    def on_kernel_start(self, kernel: Kernel) -> None:
        observers = getattr(kernel, "verdict_observers", None)
        if observers is not None:
            observers.append(self.observe_verdicts)

    @hookimpl
    def on_kernel_shutdown(self, kernel: Kernel) -> None:
        self.thread.close()
        for provider in self._owned:
            provider.shutdown()

    @hookimpl
    def on_session_start(self, session: Session) -> None:
        session.state.namespace(PLUGIN_NAME, time.monotonic)
        self.thread.submit(self.recorder.session_started)

    @hookimpl
    def on_session_end(self, session: Session) -> None:
        started = session.state.namespaces.get(PLUGIN_NAME)
        if isinstance(started, float):
            self.thread.submit(self.recorder.session_ended, time.monotonic() - started)

    # --- brackets around the engine's part of a call -------------------------------------

    @hookimpl(trylast=True)
    def on_read_enter(self, call: ReadCall, session: Session) -> None:
        self._note("engine_start", "read")

    @hookimpl(tryfirst=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> None:
        self._note("engine_end", "read")

    @hookimpl(tryfirst=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> None:
        self._note("engine_end", "search")

    @hookimpl(trylast=True)
    def on_mutation(self, event: MutationEvent, session: Session) -> None:
        if event.source == "external":
            self._note("external", **{names.CHANGED_PATHS: list(event.paths)})
        elif event.phase == "before":
            self._note("engine_start", "write")
        else:
            self._note("engine_end", "write")

    @hookimpl
    def on_call_complete(self, record: CallRecord, session: Session) -> None:
        notes = self._notes()
        self._local.notes = []
        request = current_client_request()
        # The parent is decided here, where the caller's context is current; the spans are
        # built on the recording thread.
        self.thread.submit(self.recorder.record, record, session.connection_id, request,
                           self.recorder.parent_of(request), notes)
