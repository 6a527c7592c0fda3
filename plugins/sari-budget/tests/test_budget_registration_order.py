"""Responses do not depend on the order plugins are registered in.

The budget, two small policies of this file, and every other stabilization policy
that is installed (aggregation, relevance, refgate) run one scripted session in
several registration orders; the responses must be identical byte for byte.
"""

from __future__ import annotations

from typing import Any

from budget_workspace import BIG, SMALL, WIDE
from registration_orders import installed_policies, responses_by_order

from sari_core import ReasonCodeSpec, Verdict, hookimpl
from sari_core.kernel.sessions import Session
from sari_core.models import ReadCall, ReadResult
from sari_core.testing import as_received


class NotesWide:
    """Warns on one file with its own code, at enter."""

    name = "test.notes"

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("TEST_WIDE_FILE", "wide file", rank=25)]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict | None:
        if call.target == WIDE:
            return Verdict.warn("TEST_WIDE_FILE", message="This file has long lines.")
        return None


class TagsExit:
    """Annotates every served read at exit, with a code ranked before the kernel's extensions."""

    name = "test.tags"

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("TEST_TAGGED", "tagged", severity="info", rank=21)]

    @hookimpl
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> Verdict:
        return Verdict.warn("TEST_TAGGED", message=f"tagged {result.path}")


def available_plugins() -> dict[str, Any]:
    """The budget, every other installed stabilization policy, and this file's two."""
    return {**installed_policies(), "test.notes": NotesWide, "test.tags": TagsExit}


def run_session(kernel: Any) -> list[dict[str, Any]]:
    responses = [kernel.execute_search({"query": "value_1"})]
    refs = responses[0]["meta"]["stabilization"]["next_calls"]
    steps: list[dict[str, Any]] = [
        {"mode": "file", "target": BIG},
        {"mode": "snippet", "target": BIG, "start_line": 1, "end_line": 150},
        {"mode": "file", "target": WIDE},  # over the characters cap
        {"mode": "snippet", "target": SMALL, "start_line": 1, "end_line": 5},
        {"mode": "snippet", "target": SMALL, "start_line": 1, "end_line": 5},
    ]
    if refs:
        steps.insert(0, refs[0]["arguments"])
    for _ in range(3):
        for step in steps:
            responses.append(kernel.execute_read(step))
    responses.append(kernel.execute_search({"query": "helper"}))
    return [as_received(response) for response in responses]


def test_responses_are_identical_in_every_registration_order(make_kernel) -> None:
    settings = {"budget": {"max_reads_per_session": 12}}
    runs = responses_by_order(available_plugins(),
                              lambda plugins: run_session(make_kernel(*plugins, settings=settings)))
    baseline = next(iter(runs.values()))
    for order, responses in runs.items():
        assert responses == baseline, f"responses differ for registration order {order}"
    codes = {code for r in baseline for code in r["meta"]["stabilization"]["reason_codes"]}
    # The script exercised the budget's whole vocabulary and both test policies.
    assert {"PREVIEW_DEGRADED", "BUDGET_SOFT_LIMIT", "BUDGET_HARD_LIMIT", "TEST_WIDE_FILE",
            "TEST_TAGGED"} <= codes
