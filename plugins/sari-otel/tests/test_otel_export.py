"""Configured only by ``OTEL_*``: OTLP/HTTP to a collector, and nothing at all when unset."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from otlp_receiver import OtlpReceiver, attributes

from sari_core.kernel import Kernel
from sari_otel import OtelPlugin
from sari_otel.plugin import DormantOtel
from sari_otel.providers import TelemetryConfigError


def test_otlp_http_export_reaches_a_collector(workspace: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        monkeypatch.setenv("SARI_PLUGINS", "otel")  # whatever else this environment has
        # The installed entry point, as a server would load it.
        with Kernel(roots=[workspace], analytics_sinks=[]) as kernel:
            assert kernel.pm.get_plugin("otel").active is True
            kernel.engine.ensure_index(progress=False)
            search = kernel.execute_search({"query": "respond"})
            read = kernel.execute_read({"mode": "file", "target": "src/app.py"})
        # Closing the kernel shut the providers down, which flushed both signals.
        spans = receiver.spans()
        names = sorted(span.name for _, span in spans)
        metric_names = receiver.metric_names()
    assert search["ok"] and read["ok"]
    assert names == ["sari.engine.read", "sari.engine.search", "tools/call read",
                     "tools/call search"]
    resource, call = next((r, s) for r, s in spans if s.name == "tools/call read")
    assert resource["service.name"] == "sari"
    attrs = attributes(call.attributes)
    assert attrs["gen_ai.tool.name"] == "read"
    assert attrs["sari.response.tokens"] == read["meta"]["token_estimate"]
    assert attrs["sari.execution.id"] == read["meta"]["execution_id"]
    assert call.kind == call.SPAN_KIND_SERVER
    assert {"mcp.server.operation.duration", "sari.calls", "sari.tokens"} <= metric_names
    assert receiver.content_types == {"application/x-protobuf"}


def test_unconfigured_the_plugin_is_dormant_and_the_sdk_never_imported(
        workspace: Path) -> None:
    program = f"""
import json, sys
from sari_core.kernel import Kernel
with Kernel(roots=[{str(workspace)!r}], analytics_sinks=[]) as kernel:
    kernel.execute_search({{"query": "respond"}})
    plugin = kernel.pm.get_plugin("otel")
    print(json.dumps({{
        "type": type(plugin).__name__,
        "hooks": kernel.pm.hooks_of("otel"),
        "sdk": sorted(m for m in sys.modules if m.startswith("opentelemetry.sdk")),
        "exporters": sorted(m for m in sys.modules if m.startswith("opentelemetry.exporter")),
    }}))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["SARI_PLUGINS"] = "otel"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, timeout=120, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"type": "DormantOtel", "hooks": ["on_kernel_start"], "sdk": [],
                     "exporters": []}


@pytest.mark.parametrize("environ", [
    {},
    {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
    {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"},
])
def test_what_counts_as_not_configured(environ: dict[str, str]) -> None:
    assert isinstance(OtelPlugin(environ=environ), DormantOtel)


@pytest.mark.parametrize("environ", [
    {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
    {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces",
     "OTEL_METRICS_EXPORTER": "none"},
    {"OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "none"},
])
def test_what_counts_as_configured(environ: dict[str, str]) -> None:
    plugin = OtelPlugin(environ=environ)
    try:
        assert isinstance(plugin, OtelPlugin) and plugin.active
    finally:
        plugin.thread.close()
        for provider in plugin._owned:
            provider.shutdown()


def test_an_unknown_protocol_is_a_clear_error() -> None:
    with pytest.raises(TelemetryConfigError, match="OTEL_EXPORTER_OTLP_PROTOCOL"):
        OtelPlugin(environ={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
                            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"})


def test_grpc_without_its_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.grpc.trace_exporter",
                        None)  # as if sari-otel[grpc] were not installed
    with pytest.raises(TelemetryConfigError, match=r"pip install 'sari-otel\[grpc\]'"):
        OtelPlugin(environ={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317",
                            "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
