"""A minimal OTLP/HTTP receiver on 127.0.0.1 for the tests: decodes what the exporter sends."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

DECODERS: dict[str, tuple[Any, Any]] = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse),
    "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse),
}


class OtlpReceiver:
    """Collects decoded export requests by path; ``endpoint`` is its base URL."""

    def __init__(self) -> None:
        self.requests: dict[str, list[Any]] = {path: [] for path in DECODERS}
        self.content_types: set[str] = set()
        self.received = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                decoder = DECODERS.get(self.path)
                if decoder is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                request_type, response_type = decoder
                message = request_type()
                message.ParseFromString(body)
                with receiver.received:
                    receiver.content_types.add(self.headers.get("Content-Type", ""))
                    receiver.requests[self.path].append(message)
                    receiver.received.notify_all()
                payload = response_type().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def spans(self) -> list[tuple[dict[str, Any], Any]]:
        """(resource attributes, span) for every received span."""
        found = []
        for request in self.requests["/v1/traces"]:
            for resource_spans in request.resource_spans:
                resource = attributes(resource_spans.resource.attributes)
                for scope in resource_spans.scope_spans:
                    found.extend((resource, span) for span in scope.spans)
        return found

    def metric_names(self) -> set[str]:
        return {metric.name for request in self.requests["/v1/metrics"]
                for resource_metrics in request.resource_metrics
                for scope in resource_metrics.scope_metrics for metric in scope.metrics}


def attributes(key_values: Any) -> dict[str, Any]:
    """OTLP KeyValue list -> dict (strings, ints, bools, doubles and string arrays)."""
    out: dict[str, Any] = {}
    for item in key_values:
        value = item.value
        kind = value.WhichOneof("value")
        if kind == "array_value":
            out[item.key] = [v.string_value for v in value.array_value.values]
        else:
            out[item.key] = getattr(value, kind) if kind else None
    return out
