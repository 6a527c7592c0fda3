"""sari-otel tests: skipped when the plugin is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sari_otel")

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from otel_policy import FirstReadGate  # noqa: E402

from sari_core.kernel import Kernel  # noqa: E402
from sari_otel import OtelPlugin  # noqa: E402

OTEL_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
             "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_TRACES_EXPORTER",
             "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SDK_DISABLED",
             "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES")


@pytest.fixture(autouse=True)
def _no_ambient_otel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OTEL_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "def handler(request):\n    return respond(request)\n\n\n"
        "def respond(request):\n    return {'ok': True}\n", encoding="utf-8")
    (root / "README.md").write_text("# demo\n\nrespond to requests\n", encoding="utf-8")
    return root


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


@pytest.fixture
def telemetry() -> Telemetry:
    return Telemetry()


@pytest.fixture
def kernel(workspace: Path, telemetry: Telemetry) -> Iterator[Kernel]:
    with Kernel(roots=[workspace], plugins=[telemetry.plugin, FirstReadGate()],
                load_entry_points=False, analytics_sinks=[]) as k:
        k.engine.ensure_index(progress=False)
        yield k
