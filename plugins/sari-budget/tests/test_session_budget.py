"""The session budget: soft from 80%, the 26th read refused, through every entrypoint."""

from __future__ import annotations

import pytest
from budget_workspace import BIG, MODE_READS, READS, SMALL

from sari_core import NextCall, ReasonCodeSpec, Verdict, hookimpl
from sari_core.kernel.sessions import Session
from sari_core.models import ReadCall
from sari_core.testing import stabilization

MESSAGE_PREFIX = "The read budget of this session is spent: "


def assert_refused_by_budget(response: dict) -> None:
    assert response["ok"] is False
    assert response["error"]["code"] == "BUDGET_EXCEEDED"
    assert response["error"]["message"].startswith(MESSAGE_PREFIX)
    assert response["error"]["hint"]
    block = stabilization(response)
    assert "BUDGET_HARD_LIMIT" in block["reason_codes"]
    assert block["budget_state"] == "hard_limit"
    assert block["next_calls"] and block["next_calls"][0]["tool"] == "search"
    assert "search" in block["suggested_next_action"]


def spend_reads(kernel, count: int, **kw) -> list[dict]:
    return [kernel.execute_read({"mode": "file", "target": SMALL}, **kw) for _ in range(count)]


def test_soft_limit_from_80_percent_of_the_reads(make_kernel) -> None:
    kernel = make_kernel()
    responses = spend_reads(kernel, 25)
    assert all(response["ok"] for response in responses)
    for response in responses[:19]:
        assert stabilization(response)["budget_state"] == "ok"
        assert stabilization(response)["reason_codes"] == []
    for response in responses[19:]:  # the 20th read is 80% of 25
        block = stabilization(response)
        assert block["budget_state"] == "soft_limit"
        assert block["reason_codes"] == ["BUDGET_SOFT_LIMIT"]
        assert block["suggested_next_action"].startswith("Read budget nearly spent: search")
        assert block["warnings"] == []
        assert response["meta"]["preview_degraded"] is False
    last = stabilization(responses[-1])
    assert "0 reads and" in last["suggested_next_action"]
    assert last["metrics_snapshot"]["budget_reads_remaining"] == 0


def test_the_26th_read_is_refused_and_its_next_call_runs(make_kernel) -> None:
    kernel = make_kernel()
    spend_reads(kernel, 25)
    refused = kernel.execute_read({"mode": "file", "target": SMALL})
    assert_refused_by_budget(refused)
    assert "all 25 reads" in refused["error"]["message"]
    search = stabilization(refused)["next_calls"][0]
    found = kernel.execute_search(search["arguments"])
    assert found["ok"]
    assert stabilization(found)["budget_state"] == "hard_limit"
    assert stabilization(found)["reason_codes"] == ["BUDGET_HARD_LIMIT"]
    # Refusals are not charged: the budget stays spent, not overdrawn.
    assert stabilization(refused)["metrics_snapshot"]["budget_reads_remaining"] == 0


@pytest.mark.parametrize("mode", sorted(MODE_READS))
def test_every_read_mode_counts_and_is_refused(make_kernel, mode: str) -> None:
    kernel = make_kernel()
    for _ in range(25):
        assert kernel.execute_read(MODE_READS[mode])["ok"]
    assert_refused_by_budget(kernel.execute_read(MODE_READS[mode]))


@pytest.mark.parametrize("entrypoint", sorted(READS))
def test_every_entrypoint_counts_and_the_26th_is_refused(make_kernel, entrypoint: str) -> None:
    kernel = make_kernel()
    for _ in range(25):
        response = kernel.execute_read(READS[entrypoint], entrypoint=entrypoint)
        assert response["ok"], response
    refused = kernel.execute_read(READS[entrypoint], entrypoint=entrypoint)
    assert_refused_by_budget(refused)


@pytest.mark.parametrize("entrypoint", sorted(READS))
def test_reads_through_all_entrypoints_share_one_budget(make_kernel, entrypoint: str) -> None:
    kernel = make_kernel()
    names = sorted(READS)
    for number in range(25):
        name = names[number % len(names)]
        assert kernel.execute_read(READS[name], entrypoint=name)["ok"]
    assert_refused_by_budget(kernel.execute_read(READS[entrypoint], entrypoint=entrypoint))


def test_the_line_budget_trims_then_refuses(make_kernel) -> None:
    kernel = make_kernel(settings={"budget": {"max_total_read_lines": 500}})
    first = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 1,
                                 "end_line": 300})
    assert first["ok"] and stabilization(first)["reason_codes"] == []
    second = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 301,
                                  "end_line": 600})
    assert second["text"].count("\n") == 200  # what was left of the session's 500 lines
    assert second["meta"]["preview_degraded"] is True
    assert stabilization(second)["reason_codes"] == ["BUDGET_SOFT_LIMIT", "PREVIEW_DEGRADED"]
    assert stabilization(second)["budget_state"] == "soft_limit"
    assert "200 lines left in the session budget" in stabilization(second)["warnings"][0]
    third = kernel.execute_read({"mode": "file", "target": SMALL})
    assert_refused_by_budget(third)
    assert "all 500 lines" in third["error"]["message"]


def test_soft_limit_from_80_percent_of_the_lines(make_kernel) -> None:
    kernel = make_kernel(settings={"budget": {"max_total_read_lines": 1000}})
    below = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 1,
                                 "end_line": 299})
    assert stabilization(below)["budget_state"] == "ok"
    at = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 1,
                              "end_line": 300})
    assert stabilization(at)["budget_state"] == "ok"
    over = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 1,
                                "end_line": 201})
    assert stabilization(over)["budget_state"] == "soft_limit"  # 800 of 1000 lines
    assert stabilization(over)["reason_codes"] == ["BUDGET_SOFT_LIMIT"]


def test_sessions_have_their_own_budgets(make_kernel) -> None:
    kernel = make_kernel(settings={"budget": {"max_reads_per_session": 2}})
    spend_reads(kernel, 2, connection_id="conn-a")
    assert_refused_by_budget(spend_reads(kernel, 1, connection_id="conn-a")[0])
    assert spend_reads(kernel, 1, connection_id="conn-b")[0]["ok"]
    named = [kernel.execute_read({"mode": "file", "target": SMALL, "session_id": "s1"},
                                 connection_id=conn) for conn in ("c1", "c2", "c3")]
    assert [r["ok"] for r in named] == [True, True, False]  # one session across connections


class RefuseBig:
    """Another policy refusing some reads: refusals must not be charged to the budget."""

    name = "test.refuse-big"

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("TEST_REFUSED", "A test refusal.", severity="error")]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict | None:
        if call.target == BIG:
            return Verdict.block("TEST_REFUSED", message="search first",
                                 next_calls=(NextCall(tool="search",
                                                      arguments={"query": "x"}),))
        return None


def test_refused_reads_are_not_charged(make_kernel) -> None:
    from sari_budget import BudgetPlugin

    kernel = make_kernel(BudgetPlugin(), RefuseBig(),
                         settings={"budget": {"max_reads_per_session": 3}})
    for _ in range(5):
        refused = kernel.execute_read({"mode": "file", "target": BIG})
        assert refused["error"]["code"] == "TEST_REFUSED"
        missing = kernel.execute_read({"mode": "file", "target": "pkg/missing.py"})
        assert missing["ok"] is False and missing["error"]["code"] != "BUDGET_EXCEEDED"
        invalid = kernel.execute_read({"mode": "file", "target": SMALL, "start_line": 1})
        assert invalid["error"]["code"] == "INVALID_ARGS"
    assert [r["ok"] for r in spend_reads(kernel, 4)] == [True, True, True, False]
