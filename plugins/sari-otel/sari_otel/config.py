"""Whether the standard ``OTEL_*`` environment asks for telemetry (no OpenTelemetry import).

Telemetry is on when an OTLP endpoint is named (``OTEL_EXPORTER_OTLP_ENDPOINT`` or its
per-signal variants) or an exporter is chosen (``OTEL_TRACES_EXPORTER`` /
``OTEL_METRICS_EXPORTER`` other than ``none``), unless ``OTEL_SDK_DISABLED=true``.
Otherwise the plugin stays dormant and the SDK is never imported.
"""

from __future__ import annotations

from collections.abc import Mapping

ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
EXPORTER_VARS = ("OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER")
HTTP_PROTOCOL = "http/protobuf"
GRPC_PROTOCOL = "grpc"


def telemetry_configured(environ: Mapping[str, str]) -> bool:
    """True when the environment names somewhere to send telemetry."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if any(environ.get(name, "").strip() for name in ENDPOINT_VARS):
        return True
    return any(exporter_of(environ, name) not in ("", "none") for name in EXPORTER_VARS)


def exporter_of(environ: Mapping[str, str], variable: str) -> str:
    """The first exporter named by ``variable`` (``otlp`` when only an endpoint is set)."""
    value = environ.get(variable, "").strip().lower()
    return value.split(",")[0].strip() if value else ""


def protocol_of(environ: Mapping[str, str], signal: str) -> str:
    """The OTLP protocol of ``signal`` (``TRACES``/``METRICS``): per-signal, general, default."""
    value = (environ.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL", "").strip()
             or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip() or HTTP_PROTOCOL)
    return value.lower()
