"""Turns one finished call, and what the plugin noted while it ran, into spans and metrics.

The plugin learns of a call piecemeal (policy hooks, verdict observations) and only
knows its start once it completes, so the spans are built at the end — on the plugin's
recording thread — with explicit start and end times: a ``SERVER`` span
``tools/call <tool>``, one child span for the engine's part (search, read, write) when
the hooks bracketed it, and one event per policy verdict at the time it was folded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry import context as context_api
from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.metrics import Meter, MeterProvider
from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer, TracerProvider

from sari_core import CallRecord, ClientRequest
from sari_otel import names
from sari_otel.notes import Note

INSTRUMENTATION = "sari-otel"
_PRIMITIVES = (str, bool, int, float)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(INSTRUMENTATION)
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


class CallRecorder:
    """Emits a finished call's telemetry through a tracer and a meter (either may be None)."""

    @classmethod
    def of_providers(cls, tracer_provider: TracerProvider | None,
                     meter_provider: MeterProvider | None) -> CallRecorder:
        """Into providers handed to the plugin (or built by it from ``OTEL_*``)."""
        version = _version()
        return cls(tracer_provider.get_tracer(INSTRUMENTATION, version)
                   if tracer_provider else None,
                   meter_provider.get_meter(INSTRUMENTATION, version) if meter_provider else None)

    @classmethod
    def global_api(cls) -> CallRecorder:
        """Through the global API: whatever providers the program set get the telemetry."""
        version = _version()
        return cls(trace.get_tracer(INSTRUMENTATION, version),
                   metrics.get_meter(INSTRUMENTATION, version))

    def __init__(self, tracer: Tracer | None, meter: Meter | None) -> None:
        self.tracer = tracer
        self.meter = meter
        if self.meter is not None:
            self.duration = self.meter.create_histogram(
                names.DURATION_METRIC, unit="s", description="Tool call duration on the server.",
                explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS))
            self.calls = self.meter.create_counter(
                names.CALLS_METRIC, unit="{call}", description="Tool calls, served or refused.")
            self.refusals = self.meter.create_counter(
                names.REFUSALS_METRIC, unit="{call}", description="Tool calls refused.")
            self.tokens = self.meter.create_counter(
                names.TOKENS_METRIC, unit="{token}",
                description="Estimated tokens delivered to the model.")
            self.session_duration = self.meter.create_histogram(
                names.SESSION_DURATION_METRIC, unit="s",
                description="How long a policy session lived, until evicted or closed.")
            self.sessions = self.meter.create_up_down_counter(
                names.SESSIONS_METRIC, unit="{session}", description="Live policy sessions.")
            self.verdicts = self.meter.create_counter(
                names.VERDICTS_METRIC, unit="{verdict}",
                description="Verdicts returned by policies, by plugin and action.")

    @staticmethod
    def parent_of(request: ClientRequest | None) -> Context:
        """The call span's parent: the client's ``_meta`` trace context, else the current one.

        Called on the call's thread, where the caller's context is current.
        """
        return parent_context(request) or context_api.get_current()

    @staticmethod
    def inside_server_span(parent: Context, tool: str) -> bool:
        """True when the call already runs inside an open ``tools/call <tool>`` server span
        (the MCP SDK's own, recorded once the program set global providers).

        Called on the call's thread, while that span is still open.
        """
        span = trace.get_current_span(parent)
        return span.is_recording() and getattr(span, "name", None) == f"{names.TOOLS_CALL} {tool}"

    def record(self, record: CallRecord, connection_id: str, request: ClientRequest | None,
               parent: Context, notes: list[Note], nested: bool = False) -> None:
        """Spans and metrics of a finished call.

        :param nested: the MCP SDK's server span for this call exists: Sari's becomes its
            ``INTERNAL`` child ``sari tools/call <tool>`` instead of a second server span.
        """
        end_ns = int(record.timestamp * 1e9)
        start_ns = end_ns - int(record.duration_ms * 1e6)
        notes = [note for note in notes if start_ns <= note.time_ns <= end_ns]
        meta = record.response.get("meta") or {}
        tokens = int(meta.get("token_estimate") or 0)
        error_type = record.error_code if not record.ok else None
        if self.tracer is not None:
            self._span(record, connection_id, request, parent, notes, start_ns, end_ns, tokens,
                       error_type, meta, nested)
        if self.meter is not None:
            self._metrics(record, notes, tokens, error_type)

    # --- traces -----------------------------------------------------------------------

    def _span(self, record: CallRecord, connection_id: str, request: ClientRequest | None,
              parent: Context, notes: list[Note], start_ns: int, end_ns: int, tokens: int,
              error_type: str | None, meta: Mapping[str, Any], nested: bool) -> None:
        assert self.tracer is not None
        attributes: dict[str, Any] = {
            names.MCP_METHOD: names.TOOLS_CALL, names.GEN_AI_OPERATION: names.EXECUTE_TOOL,
            names.GEN_AI_TOOL: record.tool, names.SESSION_KEY: record.session_key,
            names.EXECUTION_ID: record.execution_id, names.CALL_OK: record.ok,
            names.REASON_CODES: list(record.reason_codes), names.TOKENS: tokens,
        }
        if record.target:
            attributes[names.TARGET] = str(record.target)
        if request is not None:
            attributes[names.MCP_SESSION_ID] = connection_id
            if request.request_id is not None:
                attributes[names.JSONRPC_REQUEST_ID] = str(request.request_id)
            if request.protocol_version:
                attributes[names.MCP_PROTOCOL_VERSION] = request.protocol_version
        if error_type:
            attributes[names.ERROR_TYPE] = error_type
        snapshot = (meta.get("stabilization") or {}).get("metrics_snapshot") or {}
        for key, value in snapshot.items():
            if isinstance(value, _PRIMITIVES):
                attributes[names.SESSION_METRIC_PREFIX + key] = value
        name = f"{names.TOOLS_CALL} {record.tool}"
        root = self.tracer.start_span(f"sari {name}" if nested else name, context=parent,
                                      kind=SpanKind.INTERNAL if nested else SpanKind.SERVER,
                                      attributes=attributes, start_time=start_ns)
        for note in notes:
            if note.kind == "verdict":
                root.add_event(names.VERDICT_EVENT, note.attributes, timestamp=note.time_ns)
            elif note.kind == "external":
                root.add_event(names.EXTERNAL_CHANGE_EVENT, note.attributes,
                               timestamp=note.time_ns)
        self._engine_span(root, notes, start_ns)
        if error_type:
            root.set_status(Status(StatusCode.ERROR, error_type))
        root.end(end_time=end_ns)

    def _engine_span(self, root: trace.Span, notes: list[Note], start_ns: int) -> None:
        assert self.tracer is not None
        begin = next((n for n in notes if n.kind == "engine_start"), None)
        finish = next((n for n in notes if n.kind == "engine_end"), None)
        if finish is None:
            return
        # A search has no hook before the engine runs: its span starts with the call.
        began = begin.time_ns if begin is not None else start_ns
        span = self.tracer.start_span(names.ENGINE_SPANS[finish.engine],
                                      context=trace.set_span_in_context(root),
                                      kind=SpanKind.INTERNAL, start_time=began,
                                      attributes=finish.attributes)
        span.end(end_time=finish.time_ns)

    # --- metrics ----------------------------------------------------------------------

    def session_started(self) -> None:
        if self.meter is not None:
            self.sessions.add(1)

    def session_ended(self, seconds: float) -> None:
        if self.meter is not None:
            self.sessions.add(-1)
            self.session_duration.record(seconds)

    def _metrics(self, record: CallRecord, notes: list[Note], tokens: int,
                 error_type: str | None) -> None:
        attributes: dict[str, Any] = {names.MCP_METHOD: names.TOOLS_CALL,
                                      names.GEN_AI_TOOL: record.tool}
        if error_type:
            attributes[names.ERROR_TYPE] = error_type
        self.duration.record(record.duration_ms / 1000.0, attributes)
        self.calls.add(1, {names.GEN_AI_TOOL: record.tool, names.CALL_OK: record.ok})
        if not record.ok:
            self.refusals.add(1, {names.GEN_AI_TOOL: record.tool,
                                  names.ERROR_TYPE: error_type or "unknown"})
        if tokens:
            self.tokens.add(tokens, {names.GEN_AI_TOOL: record.tool})
        for note in notes:
            if note.kind == "verdict":
                self.verdicts.add(1, {names.POLICY_NAME: note.attributes[names.POLICY_NAME],
                                      names.POLICY_ACTION: note.attributes[names.POLICY_ACTION]})


def parent_context(request: ClientRequest | None) -> Context | None:
    """The client's trace context from ``_meta`` when valid, else None (the ambient context)."""
    if request is None or not request.meta:
        return None
    try:
        context = extract(request.meta)
    except (TypeError, ValueError):
        return None
    if not trace.get_current_span(context).get_span_context().is_valid:
        return None
    return context
