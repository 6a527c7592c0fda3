"""OTLP over gRPC (``OTEL_EXPORTER_OTLP_PROTOCOL=grpc``) to a receiver on 127.0.0.1."""

from __future__ import annotations

from concurrent import futures
from pathlib import Path
from typing import Any

import pytest

grpc = pytest.importorskip("grpc", reason="the gRPC extra (sari-otel[grpc]) is not installed")
pytest.importorskip("opentelemetry.exporter.otlp.proto.grpc")

from opentelemetry.proto.collector.trace.v1 import (  # noqa: E402
    trace_service_pb2,
    trace_service_pb2_grpc,
)

from sari_core.kernel import Kernel  # noqa: E402


class TraceReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self.requests: list[Any] = []

    def Export(self, request: Any, context: Any) -> Any:  # noqa: N802 - the gRPC service API
        self.requests.append(request)
        return trace_service_pb2.ExportTraceServiceResponse()


def test_otlp_grpc_export_reaches_a_collector(workspace: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    receiver = TraceReceiver()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(receiver, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
        monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
        monkeypatch.setenv("SARI_PLUGINS", "otel")
        with Kernel(roots=[workspace], analytics_sinks=[]) as kernel:
            kernel.engine.ensure_index(progress=False)
            assert kernel.execute_search({"query": "respond"})["ok"] is True
    finally:
        server.stop(grace=None)
    names = sorted(span.name for request in receiver.requests
                   for resource_spans in request.resource_spans
                   for scope in resource_spans.scope_spans for span in scope.spans)
    assert names == ["sari.engine.search", "tools/call search"]
