"""A span per tool call, with each policy's verdict and the engine's part, in memory."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.trace import SpanKind, StatusCode
from otel_policy import LOOK_FIRST, SECOND_LOOK
from otel_telemetry import Telemetry

from sari_core.kernel import Kernel


def _read(kernel: Kernel) -> dict:
    return kernel.execute_read({"mode": "file", "target": "src/app.py", "session_id": "s1"})


def test_a_refused_then_served_read(kernel: Kernel, telemetry: Telemetry) -> None:
    refused = _read(kernel)
    served = _read(kernel)
    assert refused["ok"] is False and served["ok"] is True
    first, second = telemetry.finished("tools/call read")

    assert first.kind is SpanKind.SERVER
    assert first.status.status_code is StatusCode.ERROR
    assert first.attributes["error.type"] == LOOK_FIRST
    assert first.attributes["mcp.method.name"] == "tools/call"
    assert first.attributes["gen_ai.operation.name"] == "execute_tool"
    assert first.attributes["gen_ai.tool.name"] == "read"
    assert first.attributes["sari.call.ok"] is False
    assert list(first.attributes["sari.reason_codes"]) == [LOOK_FIRST]
    assert first.attributes["sari.execution.id"] == refused["meta"]["execution_id"]
    verdicts = [e for e in first.events if e.name == "sari.policy.verdict"]
    assert [(e.attributes["sari.policy.name"], e.attributes["sari.policy.action"],
             tuple(e.attributes["sari.policy.reason_codes"]),
             e.attributes["sari.policy.error_code"]) for e in verdicts] == [
        ("gate", "block", (LOOK_FIRST,), LOOK_FIRST)]
    children = [s for s in telemetry.finished() if s.parent is not None
                and s.parent.span_id == first.context.span_id]
    assert children == []  # refused before the engine was asked

    assert second.status.status_code is StatusCode.UNSET
    assert "error.type" not in second.attributes
    assert second.attributes["sari.response.tokens"] == served["meta"]["token_estimate"] > 0
    assert [(e.attributes["sari.policy.name"], e.attributes["sari.policy.action"])
            for e in second.events if e.name == "sari.policy.verdict"] == [("gate", "warn")]
    assert SECOND_LOOK in second.attributes["sari.reason_codes"]
    (engine,) = telemetry.finished("sari.engine.read")
    assert engine.parent.span_id == second.context.span_id
    assert engine.context.trace_id == second.context.trace_id
    assert second.start_time <= engine.start_time <= engine.end_time <= second.end_time
    assert second.end_time - second.start_time > 0


def test_search_and_edit_have_their_engine_spans(kernel: Kernel, telemetry: Telemetry) -> None:
    assert kernel.execute_search({"query": "respond"})["ok"] is True
    edited = kernel.execute_mutation("edit", {"path": "src/app.py", "old_string": "'ok': True",
                                              "new_string": "'ok': False"})
    assert edited["ok"] is True, edited
    (search,) = telemetry.finished("tools/call search")
    (engine_search,) = telemetry.finished("sari.engine.search")
    assert engine_search.parent.span_id == search.context.span_id
    assert search.attributes["sari.response.tokens"] > 0
    (edit,) = telemetry.finished("tools/call edit")
    (engine_write,) = telemetry.finished("sari.engine.write")
    assert engine_write.parent.span_id == edit.context.span_id
    assert edit.attributes["sari.target"] == "src/app.py"


def test_an_external_change_is_an_event_of_the_call_that_noticed_it(
        kernel: Kernel, telemetry: Telemetry, workspace: Path) -> None:
    (workspace / "src" / "app.py").write_text("def changed_outside():\n    pass\n")
    response = kernel.execute_search({"query": "changed_outside"})
    assert "EXTERNAL_CHANGE" in response["meta"]["stabilization"]["reason_codes"]
    (search,) = telemetry.finished("tools/call search")
    (event,) = [e for e in search.events if e.name == "sari.external_change"]
    assert list(event.attributes["sari.changes.paths"]) == ["src/app.py"]


def test_session_metrics_ride_on_the_span(kernel: Kernel, telemetry: Telemetry) -> None:
    response = kernel.execute_search({"query": "respond", "session_id": "s2"})
    snapshot = response["meta"]["stabilization"]["metrics_snapshot"]
    assert snapshot, "the built-in session metrics contribute a snapshot"
    (span,) = telemetry.finished("tools/call search")
    for key, value in snapshot.items():
        if isinstance(value, (str, bool, int, float)):
            assert span.attributes[f"sari.session.{key}"] == value


def test_library_calls_nest_under_the_callers_current_span(kernel: Kernel,
                                                           telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("agent")
    with tracer.start_as_current_span("agent turn") as turn:
        kernel.execute_search({"query": "respond"})
    (search,) = telemetry.finished("tools/call search")
    assert search.parent.span_id == turn.get_span_context().span_id
    assert "mcp.session.id" not in search.attributes  # not served over MCP


def test_counters_and_histograms(kernel: Kernel, telemetry: Telemetry) -> None:
    refused, served = _read(kernel), _read(kernel)
    search = kernel.execute_search({"query": "respond"})
    points = telemetry.metric_points()

    calls = {(p.attributes["gen_ai.tool.name"], p.attributes["sari.call.ok"]): p.value
             for p in points["sari.calls"]}
    assert calls == {("read", False): 1, ("read", True): 1, ("search", True): 1}
    assert [(p.attributes["error.type"], p.value) for p in points["sari.refusals"]] == [
        (LOOK_FIRST, 1)]
    tokens = {p.attributes["gen_ai.tool.name"]: p.value for p in points["sari.tokens"]}
    assert tokens == {"read": served["meta"]["token_estimate"],
                      "search": search["meta"]["token_estimate"]}
    durations = {(p.attributes["gen_ai.tool.name"], p.attributes.get("error.type")): p.count
                 for p in points["mcp.server.operation.duration"]}
    assert durations == {("read", LOOK_FIRST): 1, ("read", None): 1, ("search", None): 1}
    verdicts = {(p.attributes["sari.policy.name"], p.attributes["sari.policy.action"]): p.value
                for p in points["sari.policy.verdicts"]}
    assert verdicts == {("gate", "block"): 1, ("gate", "warn"): 1}
    assert refused["ok"] is False


def test_session_lifetimes(kernel: Kernel, telemetry: Telemetry) -> None:
    kernel.execute_search({"query": "respond"}, connection_id="conn-a")
    kernel.execute_search({"query": "respond"}, connection_id="conn-b")
    kernel.end_connection("conn-a")
    points = telemetry.metric_points()
    (live,) = points["sari.sessions.active"]
    assert live.value == 1  # conn-b's session is still open
    (lifetimes,) = points["mcp.server.session.duration"]
    assert lifetimes.count == 1 and lifetimes.sum > 0


def test_a_policy_that_raises_is_an_error_verdict(workspace: Path, telemetry: Telemetry) -> None:
    from sari_core.kernel.manager import hookimpl

    class Broken:
        name = "broken"

        @hookimpl
        def on_search_complete(self) -> None:
            raise RuntimeError("policy bug")

    with Kernel(roots=[workspace], plugins=[telemetry.plugin, Broken()],
                load_entry_points=False, analytics_sinks=[]) as kernel:
        kernel.engine.ensure_index(progress=False)
        response = kernel.execute_search({"query": "respond"})
    assert "PLUGIN_ERROR" in response["meta"]["stabilization"]["reason_codes"]
    (span,) = telemetry.finished("tools/call search")
    assert [(e.attributes["sari.policy.name"], e.attributes["sari.policy.action"])
            for e in span.events if e.name == "sari.policy.verdict"] == [("broken", "error")]
