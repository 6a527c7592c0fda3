"""Tracer and meter providers built from the ``OTEL_*`` environment (imports the SDK).

The providers are private to the plugin, never installed as OpenTelemetry's global
ones: an application embedding Sari keeps its own. The OTLP exporters read their
endpoint, headers, timeout and compression from the standard variables themselves;
batching follows ``OTEL_BSP_*`` and the metric interval ``OTEL_METRIC_EXPORT_INTERVAL``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

from sari_otel.config import GRPC_PROTOCOL, HTTP_PROTOCOL, exporter_of, protocol_of

log = logging.getLogger(__name__)

SERVICE_NAME = "sari"


class TelemetryConfigError(ValueError):
    """The ``OTEL_*`` environment names an exporter or protocol Sari cannot use."""


def resource(environ: Mapping[str, str]) -> Resource:
    """``service.name=sari``, unless ``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES``
    name the service."""
    named = environ.get("OTEL_SERVICE_NAME") or "service.name=" in environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", "")
    return Resource.create({} if named else {"service.name": SERVICE_NAME})


def _otlp_exporter(environ: Mapping[str, str], signal: str) -> Any:
    protocol = protocol_of(environ, signal)
    if protocol == HTTP_PROTOCOL:
        if signal == "TRACES":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            return OTLPSpanExporter()
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        return OTLPMetricExporter()
    if protocol == GRPC_PROTOCOL:
        try:
            if signal == "TRACES":
                # The [grpc] extra: not installed where only HTTP export is used.
                from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # pyright: ignore[reportMissingImports]
                    OTLPSpanExporter as GrpcSpanExporter,
                )
                return GrpcSpanExporter()
            from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (  # pyright: ignore[reportMissingImports]
                OTLPMetricExporter as GrpcMetricExporter,
            )
            return GrpcMetricExporter()
        except ImportError as exc:
            raise TelemetryConfigError(
                f"OTLP over gRPC needs the gRPC exporter ({exc}); "
                "install it with: pip install 'sari-otel[grpc]'") from exc
    raise TelemetryConfigError(
        f"unsupported OTLP protocol {protocol!r} for {signal.lower()}; "
        f"use {HTTP_PROTOCOL!r} or {GRPC_PROTOCOL!r} (OTEL_EXPORTER_OTLP_PROTOCOL)")


def tracer_provider(environ: Mapping[str, str]) -> TracerProvider | None:
    """A provider exporting spans as ``OTEL_TRACES_EXPORTER`` says, or None for ``none``."""
    exporter = exporter_of(environ, "OTEL_TRACES_EXPORTER") or "otlp"
    if exporter == "none":
        return None
    provider = TracerProvider(resource=resource(environ))
    if exporter == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    elif exporter == "otlp":
        provider.add_span_processor(BatchSpanProcessor(_otlp_exporter(environ, "TRACES")))
    else:
        raise TelemetryConfigError(f"unsupported OTEL_TRACES_EXPORTER {exporter!r}; "
                                   "use otlp, console or none")
    return provider


def meter_provider(environ: Mapping[str, str]) -> MeterProvider | None:
    """A provider exporting metrics as ``OTEL_METRICS_EXPORTER`` says, or None for ``none``."""
    exporter = exporter_of(environ, "OTEL_METRICS_EXPORTER") or "otlp"
    if exporter == "none":
        return None
    reader: MetricReader
    if exporter == "console":
        reader = PeriodicExportingMetricReader(ConsoleMetricExporter())
    elif exporter == "otlp":
        reader = PeriodicExportingMetricReader(_otlp_exporter(environ, "METRICS"))
    else:
        raise TelemetryConfigError(f"unsupported OTEL_METRICS_EXPORTER {exporter!r}; "
                                   "use otlp, console or none")
    return MeterProvider(resource=resource(environ), metric_readers=[reader])
