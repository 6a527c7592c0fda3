"""Invariants of ripple promotion over random rounds (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from random_rounds import assert_n_rose_or_reset, change_files, placements, round_strategy
from ripple_workspace import Contents

from sari_ripple import RippleTracker
from sari_ripple.config import tier_rules

RULES = tier_rules()


def _check_layout(tracker: RippleTracker) -> None:
    grouped = tracker.get_items_by_tier()
    listed = [item for items in grouped.values() for item in items]
    assert len(listed) == len(set(listed)), "an item is in two tiers"
    assert sorted(listed) == tracker.tracked()
    for tier, items in grouped.items():
        for item in items:
            n_value = tracker.get_n_value(item)
            if tier == "active":
                assert n_value == 0
                continue
            rule = RULES[tier]
            assert n_value >= rule.entry_n
            if rule.promotion_threshold is not None:
                assert n_value < rule.promotion_threshold, "a due promotion was left undone"


def _snapshot(tracker: RippleTracker) -> dict[str, tuple[str, int]]:
    return {item: (tracker.get_tier(item), tracker.get_n_value(item))
            for item in tracker.tracked()}


@settings(max_examples=200, deadline=None)
@given(start=placements, rounds=st.lists(round_strategy, min_size=1, max_size=25))
def test_n_never_decreases_except_on_return_to_active_and_no_item_is_in_two_tiers(
        start: dict[str, tuple[str, int]], rounds: list[dict[str, set[str] | list[str]]]) -> None:
    tracker, contents = RippleTracker(), Contents()
    for item, (tier, extra) in sorted(start.items()):
        tracker.place(item, tier, contents(item),  # type: ignore[arg-type]
                      n_value=RULES[tier].entry_n + min(extra, 2))
    _check_layout(tracker)
    for step in rounds:
        change_files(contents, step)
        snapshot = _snapshot(tracker)
        for item in sorted(step["demoted"]):
            tracker.demote(item)
        assert_n_rose_or_reset(snapshot, tracker, contents)
        snapshot = _snapshot(tracker)
        changes = tracker.update_after_response(step["items"], contents, step["modified"])
        assert_n_rose_or_reset(snapshot, tracker, contents)
        assert changes == {item: tracker.get_tier(item) for item in tracker.tracked()
                           if snapshot.get(item, ("new", 0))[0] != tracker.get_tier(item)}
        _check_layout(tracker)
        assert RippleTracker.from_dict(tracker.to_dict()).to_dict() == tracker.to_dict()
