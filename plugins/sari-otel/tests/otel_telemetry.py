"""An active sari-otel plugin over the SDK's in-memory exporters, for the tests."""

from __future__ import annotations

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sari_otel import OtelPlugin


class Telemetry:
    """In-memory exporters behind an active sari-otel plugin."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.metrics = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.metrics])
        self.plugin = OtelPlugin(tracer_provider=self.tracer_provider,
                                 meter_provider=self.meter_provider)

    def finished(self, name: str | None = None) -> list:
        self.plugin.flush()
        return [s for s in self.spans.get_finished_spans() if name is None or s.name == name]

    def metric_points(self) -> dict[str, list]:
        self.plugin.flush()
        data = self.metrics.get_metrics_data()
        points: dict[str, list] = {}
        for resource_metrics in data.resource_metrics if data else []:
            for scope in resource_metrics.scope_metrics:
                for metric in scope.metrics:
                    points.setdefault(metric.name, []).extend(metric.data.data_points)
        return points
