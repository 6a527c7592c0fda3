"""The adaptive policy: oldest-changed first, one block per item, breakpoints learnt per session."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_rounds import ITEMS, change_files, round_strategy
from ripple_workspace import Contents
from test_ripple_tool import FILES, _read, _round

from sari_ripple import AdaptiveTracker, PromptPlan, build_prompt_plan, new_tracker

TOKENS = {item: 600 + 150 * index for index, item in enumerate(ITEMS)}


Order = dict[str, tuple[bool, int]]


def _play(tracker: AdaptiveTracker, contents: Contents, rounds: list[dict[str, Any]]
          ) -> list[tuple[PromptPlan, Order]]:
    """Each round's plan (items given in reverse) and each item's (in play, -age) then."""
    plans = []
    for step in rounds:
        change_files(contents, step)
        tracker.update_after_response(step["items"], contents, step["modified"])
        present = [item for item in ITEMS if item in tracker]
        plan = build_prompt_plan(tracker, reversed(present), TOKENS.__getitem__)
        order = {item: (tracker.get_tier(item) == "active",
                        -tracker.info(item).age)  # type: ignore[union-attr]
                 for item in present}
        plans.append((plan, order))
    return plans


def _shape(plan: PromptPlan) -> list[tuple[str, list[str], bool]]:
    return [(block.tier, [entry.item for entry in block.items], block.cached)
            for block in plan.blocks]


@settings(max_examples=120, deadline=None)
@given(rounds=st.lists(round_strategy, min_size=1, max_size=25))
def test_every_plan_is_a_valid_request_and_the_same_rounds_give_the_same_plans(
        rounds: list[dict[str, Any]]) -> None:
    tracker = new_tracker(policy="adaptive")
    assert isinstance(tracker, AdaptiveTracker)
    plans = _play(tracker, Contents(), rounds)
    again = _play(AdaptiveTracker(), Contents(), rounds)
    assert [_shape(plan) for plan, _ in plans] == [_shape(plan) for plan, _ in again]
    for plan, order in plans:
        content = plan.content_blocks(lambda item: f"<file {item}/>")
        marked = [block for block in content if "cache_control" in block]
        assert len(marked) == plan.breakpoints <= 4
        assert all(block["type"] == "text" and block["text"] for block in content)
        assert all(block["cache_control"] == {"type": "ephemeral"} for block in marked)
        assert all(len(block.items) == 1 for block in plan.blocks)   # one block per item
        items = [entry.item for block in plan.blocks for entry in block.items]
        assert len(items) == len(set(items))
        # Oldest first, Active last and never before a breakpoint.
        assert [order[item] for item in items] == sorted(order[item] for item in items)
        last_breakpoint = max((index for index, block in enumerate(plan.blocks) if block.cached),
                              default=-1)
        assert all(block.tier != "active" for block in plan.blocks[:last_breakpoint + 1])
    restored = AdaptiveTracker()
    restored.load_dict(tracker.to_dict())
    assert restored.to_dict() == tracker.to_dict()


def _age_rounds(tracker: AdaptiveTracker, contents: Contents, hot: list[str], rounds: int
                ) -> PromptPlan:
    plan = PromptPlan()
    for _ in range(rounds):
        for item in hot:
            contents.touch(item)
        tracker.update_after_response(hot, contents, hot)
        plan = build_prompt_plan(tracker, ITEMS, TOKENS.__getitem__)
    return plan


def test_breakpoints_go_where_the_past_rounds_say_the_prefix_survives() -> None:
    tracker, contents = AdaptiveTracker(), Contents()
    tracker.update_after_response(ITEMS, contents, ITEMS)
    # f7 changes every round, f6 every other one: the other six are the stable head.
    for round_number in range(12):
        hot = ["f7", "f6"] if round_number % 2 else ["f7"]
        plan = _age_rounds(tracker, contents, hot, 1)
    assert tracker.change_ages == {0: 6, 1: 6}
    shape = _shape(plan)
    items = [names[0] for _, names, _ in shape]
    assert items[:6] == ["f0", "f1", "f2", "f3", "f4", "f5"] and items[-1] == "f7"
    # A breakpoint right after the stable head: every round so far would have hit it.
    assert shape[5][2] is True
    assert plan.breakpoints <= 4


def test_an_item_leaving_the_context_counts_as_a_change_at_its_age() -> None:
    tracker, contents = AdaptiveTracker(), Contents()
    tracker.update_after_response(ITEMS, contents, ITEMS)
    _age_rounds(tracker, contents, ["f7"], 5)
    contents.deleted.add("f0")          # evicted from the context: its file is gone to us
    tracker.update_after_response(["f7"], contents, ["f7"])
    assert "f0" not in tracker and tracker.change_ages[5] == 1


def test_before_any_round_the_breakpoints_sit_at_the_token_quartiles() -> None:
    tracker, contents = AdaptiveTracker(), Contents()
    for item in ITEMS:
        tracker.place(item, "L3", contents(item))
    tracker.update_after_response([], contents)
    plan = build_prompt_plan(tracker, ITEMS, lambda item: 1000)
    # All eight are one age: one stretch, one breakpoint after the last.
    assert [block.cached for block in plan.blocks] == [False] * 7 + [True]


def test_a_state_with_a_bad_history_is_refused() -> None:
    state = AdaptiveTracker().to_dict()
    for bad in ({"x": 1}, {"3": 0}, {"-5": 2}):
        with pytest.raises(ValueError, match="change_ages"):
            AdaptiveTracker().load_dict({**state, "change_ages": bad})


def test_context_tiers_defaults_to_adaptive_blocks(make_kernel) -> None:
    kernel = make_kernel(FILES, settings={"ripple": {"initial_from_references": False}})
    items = ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    _read(kernel, "pkg/a.py")
    first = _round(kernel, items)
    second = _round(kernel, items, include_text=True)
    assert first["policy"] == second["policy"] == "adaptive"
    blocks = second["plan"]["blocks"]
    assert [block["items"] for block in blocks] == [["pkg/b.py"], ["pkg/c.py"], ["pkg/a.py"]]
    assert 1 <= second["plan"]["breakpoints"] <= 4
    content = second["plan"]["content"]
    assert len(content) == 3 and "pkg/a.py" in content[2]["text"]
