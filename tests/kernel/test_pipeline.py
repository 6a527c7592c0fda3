"""The kernel pipeline around the engine: reads, searches, mutations, compaction, tools."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sari_core import Kernel, ToolSpec, Verdict, hookimpl
from sari_core.kernel.verdicts import FoldedVerdict
from sari_core.models import (
    CompactionContribution,
    CompactionEvent,
    FileChange,
    TierEntry,
)
from sari_core.responses import tool_response
from sari_core.testing import MemoryEngine

FILES = {"a.py": "".join(f"a{i}\n" for i in range(1, 11)), "b.py": "b1\n"}


def kernel_with(*plugins: object, files: dict[str, str] | None = None) -> Kernel:
    return Kernel(MemoryEngine(files or FILES), plugins=list(plugins), load_entry_points=False,
                  analytics_sinks=[])


class Recorder:
    def __init__(self) -> None:
        self.records: list[Any] = []
        self.mutations: list[Any] = []

    @hookimpl
    def on_call_complete(self, record, session) -> None:
        self.records.append(record)

    @hookimpl
    def on_mutation(self, event, session) -> None:
        self.mutations.append((event.phase, event.source, event.tool, event.paths))


def test_every_call_is_recorded_once_including_refusals() -> None:
    recorder = Recorder()
    kernel = kernel_with(recorder)
    kernel.execute_search({"query": "a1"})
    kernel.execute_read({"mode": "file", "target": "a.py"})
    kernel.execute_read({"mode": "file", "target": "a.py", "against": "HEAD"})  # invalid
    kernel.execute_read({"mode": "file", "target": "missing.py"})  # engine refusal
    kernel.execute_read({"path": "b.py"}, entrypoint="read_file")  # deprecated wrapper
    kernel.execute_mutation("edit", {"path": "b.py", "old_string": "b1", "new_string": "b2"})
    outcomes = [(r.tool, r.ok, r.error_code) for r in recorder.records]
    assert outcomes == [
        ("search", True, None), ("read", True, None), ("read", False, "INVALID_ARGS"),
        ("read", False, "NOT_FOUND"), ("read_file", True, None), ("edit", True, None)]
    ids = [r.execution_id for r in recorder.records]
    assert len(set(ids)) == len(ids)
    assert recorder.records[1].response["meta"]["execution_id"] == ids[1]
    kernel.close()


def test_deprecated_wrappers_are_thin_calls_into_read() -> None:
    kernel = kernel_with()
    direct = kernel.execute_read({"mode": "snippet", "target": "a.py", "start_line": 2,
                                  "end_line": 3})
    wrapped = kernel.execute_read({"path": "a.py", "start_line": 2, "end_line": 3},
                                  entrypoint="get_snippet")
    assert wrapped["text"] == direct["text"] == "a2\na3\n"
    assert wrapped["mode"] == "snippet"
    refused = kernel.execute_read({"name": "x", "against": "HEAD"}, entrypoint="read_symbol")
    assert refused["error"]["message"] == ("against is only valid for mode='diff_preview'. "
                                           "Remove it or switch mode.")
    kernel.close()


def test_invalid_argument_messages_follow_the_contract() -> None:
    kernel = kernel_with()
    cases = {
        ("file", "start_line"): "start_line is only valid for mode='snippet'. Remove it or switch mode.",
        ("snippet", "path"): "path is only valid for mode='symbol'. Remove it or switch mode.",
        ("symbol", "against"): "against is only valid for mode='diff_preview'. Remove it or switch mode.",
    }
    for (mode, param), message in cases.items():
        args = {"mode": mode, "target": "a.py", param: "HEAD" if param == "against" else 1}
        if mode == "snippet":
            args["start_line"] = 1
        response = kernel.execute_read(args)
        assert response["ok"] is False and response["error"]["code"] == "INVALID_ARGS"
        assert response["error"]["message"] == message
        assert response["error"]["hint"]
    missing = kernel.execute_read({"target": "a.py"})
    assert missing["error"]["code"] == "INVALID_ARGS" and "mode is required" in missing["error"]["message"]
    bad_mode = kernel.execute_read({"mode": "grep", "target": "a.py"})
    assert "not a read mode" in bad_mode["error"]["message"]
    kernel.close()


def test_exit_block_withholds_the_payload() -> None:
    class Withhold:
        @hookimpl
        def on_read_exit(self, call, result, session):
            return Verdict.block("PREVIEW_DEGRADED", message="withheld", error_code="WITHHELD")

    kernel = kernel_with(Withhold())
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert response["ok"] is False and response["error"]["code"] == "WITHHELD"
    assert "text" not in response
    kernel.close()


def test_exit_hooks_may_rewrite_the_payload_in_canonical_order() -> None:
    class Upper:
        name = "z-upper"

        @hookimpl(tryfirst=True)
        def on_read_exit(self, call, result, session):
            result.text = result.text.upper()

    class Trim:
        name = "a-trim"

        @hookimpl(trylast=True)
        def on_read_exit(self, call, result, session):
            result.text = result.text[:6]
            result.preview_degraded = True

    for order in ((Upper(), Trim()), (Trim(), Upper())):
        kernel = kernel_with(*order)
        response = kernel.execute_read({"mode": "file", "target": "a.py"})
        assert response["text"] == "A1\nA2\n"
        assert response["meta"]["preview_degraded"] is True
        kernel.close()


def test_external_changes_are_raised_as_mutations_before_the_call() -> None:
    recorder = Recorder()
    engine = MemoryEngine(FILES)
    kernel = Kernel(engine, plugins=[recorder], load_entry_points=False, analytics_sinks=[])
    engine.files["b.py"] = "changed\n"
    engine.external.append(FileChange(path="b.py", abs_path="/x/b.py", old_text="b1\n",
                                      new_text="changed\n"))
    response = kernel.execute_search({"query": "changed"})
    assert recorder.mutations == [("after", "external", "external", ["b.py"])]
    assert "EXTERNAL_CHANGE" in response["meta"]["stabilization"]["reason_codes"]
    assert response["matches"][0]["path"] == "b.py"
    kernel.close()


def test_mutation_veto_and_after_phase_gate() -> None:
    class Gate:
        name = "gate"

        @hookimpl
        def on_mutation(self, event, session):
            if event.phase == "before" and event.paths == ["b.py"]:
                return Verdict.block("PREVIEW_DEGRADED", message="b.py is frozen",
                                     error_code="FROZEN")
            if event.phase == "after":
                return Verdict.block("PREVIEW_DEGRADED", message="new errors", error_code="GATED")
            return None

    engine = MemoryEngine(FILES)
    kernel = Kernel(engine, plugins=[Gate()], load_entry_points=False, analytics_sinks=[])
    vetoed = kernel.execute_mutation("write", {"path": "b.py", "content": "x\n"})
    assert vetoed["ok"] is False and vetoed["error"]["code"] == "FROZEN"
    assert engine.files["b.py"] == "b1\n"
    done = kernel.execute_mutation("edit", {"path": "a.py", "old_string": "a1\n",
                                            "new_string": "A1\n"})
    assert done["ok"] is True and engine.files["a.py"].startswith("A1\n")
    assert done["meta"]["gated"] == {"by": "gate", "code": "GATED",
                                     "message": "new errors"}
    assert done["changes"] == [{"path": "a.py", "status": "modified", "lines_before": 10,
                                "lines_after": 10}]
    kernel.close()


def test_compaction_summary_combines_contributions_by_plugin_name() -> None:
    stored = []

    class Base:
        name = "m-base"

        @hookimpl
        def on_compaction(self, event, session):
            return CompactionContribution(summary="=== S ===\nGoal: g\nBE HONEST: ?\nIf NO: q",
                                          insert_before="BE HONEST:")

        @hookimpl
        def on_compaction_complete(self, event, summary, session):
            stored.append(summary)

    class Extra:
        def __init__(self, name: str) -> None:
            self.name = name

        @hookimpl
        def on_compaction(self, event, session):
            return CompactionContribution(lines=[f"{self.name}: open"])

    for plugins in ((Base(), Extra("z"), Extra("a")), (Extra("a"), Extra("z"), Base())):
        kernel = kernel_with(*plugins)
        summary = kernel.compact(CompactionEvent(chat_session_id="c"))
        assert summary == "=== S ===\nGoal: g\na: open\nz: open\nBE HONEST: ?\nIf NO: q"
        kernel.close()
    assert len(stored) == 2 and stored[0] == stored[1]


def test_plugin_tools_and_tier_events_go_through_the_kernel() -> None:
    entries = []

    class EchoArgs(BaseModel):
        word: str

    def echo(args: EchoArgs, session) -> dict:
        session.emit_tier_entry(TierEntry(item=args.word, tier="L3", n_value=3,
                                          reason="inactive"))
        return tool_response("echo", args.word, {"echo": args.word}, FoldedVerdict(), {}, "x")

    class Tooling:
        @hookimpl
        def sari_register_tools(self):
            return [ToolSpec("echo", "Echo a word.", EchoArgs, echo)]

        @hookimpl
        def on_tier_entry(self, entry, session):
            entries.append((entry.item, entry.tier))

    kernel = kernel_with(Tooling())
    assert kernel.execute_tool("echo", {"word": "hi"})["echo"] == "hi"
    assert entries == [("hi", "L3")]
    bad = kernel.execute_tool("echo", {})
    assert bad["ok"] is False and bad["error"]["code"] == "INVALID_ARGS"
    unknown = kernel.execute_tool("nope", {})
    assert unknown["error"]["code"] == "UNKNOWN_TOOL"
    kernel.close()


def test_every_response_carries_the_stabilization_contract() -> None:
    kernel = kernel_with()
    responses = [
        kernel.execute_search({"query": "a"}),
        kernel.execute_read({"mode": "file", "target": "a.py"}),
        kernel.execute_read({"mode": "file"}),
        kernel.execute_mutation("write", {"path": "c.py", "content": "c\n"}),
    ]
    for response in responses:
        stab = response["meta"]["stabilization"]
        # The kernel's own keys; plugins add theirs through registered fields.
        assert list(stab)[:5] == ["suggested_next_action", "warnings", "reason_codes",
                                  "metrics_snapshot", "next_calls"]
        assert {"truncated", "token_estimate", "preview_degraded"} <= set(response["meta"])
    assert responses[1]["meta"]["stabilization"]["metrics_snapshot"]["reads_count"] == 1
    assert responses[1]["meta"]["stabilization"]["metrics_snapshot"]["search_count"] == 1
    kernel.close()
