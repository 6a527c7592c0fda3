"""Sari telemetry over OpenTelemetry: spans and metrics per tool call, configured by ``OTEL_*``."""

from sari_otel.plugin import OtelPlugin

__all__ = ["OtelPlugin"]
