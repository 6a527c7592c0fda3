"""Responses do not depend on the order plugins are registered in.

Aggregation, a small rewriting policy of this file, a warning policy, and every
other stabilization policy that is installed (budget, relevance, refgate) run one
scripted session in several registration orders; responses must be identical.
"""

from __future__ import annotations

from typing import Any

from aggregation_workspace import BIG, LONG, OTHER
from registration_orders import installed_policies, responses_by_order

from sari_core import ReasonCodeSpec, Verdict, hookimpl
from sari_core.kernel.sessions import Session
from sari_core.models import ReadCall, ReadResult
from sari_core.testing import as_received


class Footer:
    """Appends a footer to reads of one file (a rewrite after aggregation, plain order)."""

    name = "test.footer"

    @hookimpl
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> None:
        if result.path == OTHER:
            result.text += "# footer\n"


class Cautions:
    name = "test.cautions"

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("TEST_CAUTION", "caution", rank=22)]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict | None:
        if call.mode == "snippet":
            return Verdict.warn("TEST_CAUTION", message="snippets are partial")
        return None


def available_plugins() -> dict[str, Any]:
    """Aggregation, every other installed stabilization policy, and this file's two."""
    return {**installed_policies(), "test.footer": Footer, "test.cautions": Cautions}


def run_session(kernel: Any) -> list[dict[str, Any]]:
    responses = [kernel.execute_search({"query": "function_01"})]
    refs = [call["arguments"] for call in responses[0]["meta"]["stabilization"]["next_calls"]]
    steps: list[dict[str, Any]] = [
        *refs[:2],
        {"mode": "snippet", "target": LONG, "start_line": 1, "end_line": 60},
        {"mode": "snippet", "target": LONG, "start_line": 30, "end_line": 90},
        {"mode": "file", "target": LONG, "offset": 0, "limit": 120},
        {"mode": "file", "target": OTHER, "limit": 40},
        {"mode": "file", "target": OTHER, "limit": 40},
        {"mode": "file", "target": BIG, "limit": 150},
        {"mode": "file", "target": BIG, "limit": 150},
    ]
    for step in steps:
        responses.append(kernel.execute_read(step))
    return [as_received(response) for response in responses]


def test_responses_are_identical_in_every_registration_order(make_kernel) -> None:
    runs = responses_by_order(available_plugins(),
                              lambda plugins: run_session(make_kernel(*plugins)))
    baseline = next(iter(runs.values()))
    for order, responses in runs.items():
        assert responses == baseline, f"responses differ for registration order {order}"
    codes = {code for r in baseline for code in r["meta"]["stabilization"]["reason_codes"]}
    assert {"AGGREGATION_DEDUPLICATED", "TEST_CAUTION"} <= codes
    # The footer rewrote OTHER after aggregation: its re-read is never a reference.
    other_reads = [r for r in baseline if r.get("ok") and r.get("target") == OTHER]
    assert other_reads and all("[sari]" not in r["text"] for r in other_reads)
