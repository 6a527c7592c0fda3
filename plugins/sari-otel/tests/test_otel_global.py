"""Telemetry as a library records it: into the program's global providers, no OTEL_* needed;
``sari serve`` configures the SDK from OTEL_* only when nothing else has."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from otlp_receiver import OtlpReceiver, attributes

HOST_PROGRAM = """
import json, sys
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

from sari_core.kernel import Kernel

with trace.get_tracer("host-app").start_as_current_span("host request"):
    with Kernel(roots=[sys.argv[1]], analytics_sinks=[]) as kernel:
        kernel.engine.ensure_index(progress=False)
        kernel.execute_search({"query": "respond"})
        kernel.execute_read({"mode": "file", "target": "src/app.py"})
        plugin = kernel.pm.get_plugin("otel")
        plugin.flush()
        found = {"destination": plugin.destination, "owned": len(plugin._owned)}
spans = exporter.get_finished_spans()
by_id = {span.context.span_id: span.name for span in spans}
found["spans"] = [{"name": s.name, "parent": by_id.get(s.parent.span_id) if s.parent else None,
                   "attributes": dict(s.attributes or {})} for s in spans]
data = reader.get_metrics_data()
found["metrics"] = sorted({m.name for rm in data.resource_metrics for sm in rm.scope_metrics
                           for m in sm.metrics})
print(json.dumps(found, default=list))
"""

LIBRARY_WITH_ENV = """
import json, sys
from sari_core.kernel import Kernel
with Kernel(roots=[sys.argv[1]], analytics_sinks=[]) as kernel:
    plugin = kernel.pm.get_plugin("otel")
    from opentelemetry import trace
    print(json.dumps({"destination": plugin.destination,
                      "global": type(trace.get_tracer_provider()).__name__}))
"""


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(SARI_PLUGINS="otel", SARI_STATE_DIR=str(tmp / "state"), **extra)
    return env


def run_program(program: str, workspace: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", program, str(workspace)], env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_host_applications_providers_get_sari_telemetry_with_no_otel_env(
        workspace: Path, tmp_path: Path) -> None:
    found = run_program(HOST_PROGRAM, workspace, clean_env(tmp_path))
    assert found["destination"] == "the program's global providers" and found["owned"] == 0
    spans = {span["name"]: span for span in found["spans"]}
    assert spans["tools/call search"]["parent"] == "host request"
    assert spans["tools/call read"]["parent"] == "host request"
    search = spans["sari.engine.search"]
    assert search["parent"] == "tools/call search"
    assert search["attributes"]["sari.search.kind"] == "text"
    assert search["attributes"]["sari.search.hits"] >= 2
    assert search["attributes"]["sari.search.returned"] >= 2
    assert search["attributes"]["sari.index.state"] == "ready"
    read = spans["sari.engine.read"]["attributes"]
    source = (workspace / "src" / "app.py").read_bytes()
    assert read["sari.read.mode"] == "file"
    assert read["sari.read.bytes"] == len(source)
    assert read["sari.read.lines"] == source.count(b"\n")
    assert {"sari.calls", "mcp.server.operation.duration"} <= set(found["metrics"])


def test_inside_another_program_sari_installs_no_global_provider(
        workspace: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path, OTEL_TRACES_EXPORTER="console", OTEL_METRICS_EXPORTER="none")
    found = run_program(LIBRARY_WITH_ENV, workspace, env)
    assert found == {"destination": "providers of its own, from OTEL_*",
                     "global": "ProxyTracerProvider"}


async def _read_over_stdio(command: list[str], env: dict[str, str], cwd: Path) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(cwd))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("read", {"mode": "file", "target": "src/app.py"})
        assert not result.is_error


def serve_and_read(command: list[str], env: dict[str, str], workspace: Path) -> None:
    anyio.run(_read_over_stdio, command, env, workspace)


def server_log(tmp: Path) -> str:
    return "\n".join(path.read_text(errors="replace")
                     for path in (tmp / "state").rglob("*.log"))


def engine_read_span(receiver: OtlpReceiver) -> tuple[dict[str, Any], dict[str, Any]]:
    resource, span = next((r, s) for r, s in receiver.spans() if s.name == "sari.engine.read")
    return resource, attributes(span.attributes)


def test_sari_serve_configures_the_sdk_from_otel_env_as_the_global_one(
        workspace: Path, tmp_path: Path) -> None:
    with OtlpReceiver() as receiver:
        env = clean_env(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
                        OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf")
        serve_and_read([sys.executable, "-m", "sari_core.cli.main", "serve"], env, workspace)
        resource, attrs = engine_read_span(receiver)
        spans = [span for _, span in receiver.spans()]
    assert resource["service.name"] == "sari" and attrs["sari.read.mode"] == "file"
    # The call is one server span. The MCP SDK records its own once the providers exist, and
    # Sari's span nests under it; a call that arrived while the plugins were still opening
    # (initialize is answered before they are) ran under the SDK's not-yet-recording span,
    # so Sari's span is that call's server span.
    servers = [span for span in spans if span.name == "tools/call read"]
    nested = [span for span in spans if span.name == "sari tools/call read"]
    assert len(servers) == 1 and len(nested) <= 1
    assert all(span.parent_span_id == servers[0].span_id for span in nested)
    assert "recording into global providers configured from OTEL_*" in server_log(tmp_path)


def test_under_opentelemetry_instrument_sari_uses_the_sdk_it_configured(
        workspace: Path, tmp_path: Path) -> None:
    instrument = shutil.which("opentelemetry-instrument") or str(
        Path(sys.executable).parent / "opentelemetry-instrument")
    if not Path(instrument).exists():
        pytest.skip("opentelemetry-instrument is not installed (pip install opentelemetry-distro)")
    with OtlpReceiver() as receiver:
        env = clean_env(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
                        OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf",
                        OTEL_TRACES_EXPORTER="otlp", OTEL_METRICS_EXPORTER="otlp",
                        OTEL_LOGS_EXPORTER="none", OTEL_SERVICE_NAME="team-sari",
                        OTEL_METRIC_EXPORT_INTERVAL="500")
        serve_and_read([instrument, sys.executable, "-m", "sari_core.cli.main", "serve"], env,
                       workspace)
        resource, attrs = engine_read_span(receiver)
        spans = {span.name: span for _, span in receiver.spans()}
        names = sorted(span.name for _, span in receiver.spans())
    assert resource["service.name"] == "team-sari"  # the instrumented program's SDK
    assert attrs["sari.read.bytes"] > 0
    # The MCP SDK's own server span is the call's; Sari's nests in it, nothing twice.
    assert names.count("tools/call read") == 1 and names.count("sari tools/call read") == 1
    sari_call = spans["sari tools/call read"]
    assert sari_call.parent_span_id == spans["tools/call read"].span_id
    assert sari_call.kind == sari_call.SPAN_KIND_INTERNAL
    assert "recording into the program's global providers" in server_log(tmp_path)
