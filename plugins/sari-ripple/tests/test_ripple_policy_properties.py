"""Invariants of the fixed and gated policies over random rounds (hypothesis).

Ripple's own invariants are in test_ripple_properties.py; these hold for the other two.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_rounds import assert_n_rose_or_reset, change_files, placements, round_strategy
from ripple_workspace import Contents

from sari_core.models import TierEntry
from sari_ripple import FixedThresholdTracker, GatedRippleTracker, TierTracker, new_tracker

Snapshot = dict[str, tuple[str, int, int]]


def _snapshot(tracker: TierTracker) -> Snapshot:
    records = {item: tracker.info(item) for item in tracker.tracked()}
    return {item: (info.tier, info.n_value, info.age) for item, info in records.items()
            if info is not None}


def _check_common(before: Snapshot, tracker: TierTracker, contents: Contents,
                  changes: dict[str, str]) -> None:
    grouped = tracker.get_items_by_tier()
    listed = [item for items in grouped.values() for item in items]
    assert len(listed) == len(set(listed)), "an item is in two tiers"
    assert sorted(listed) == tracker.tracked()
    assert_n_rose_or_reset(before, tracker, contents)
    assert changes == {item: tracker.get_tier(item) for item in tracker.tracked()
                       if before.get(item, ("new", 0, 0))[0] != tracker.get_tier(item)}


def _check_fixed(before: Snapshot, tracker: TierTracker, placed: set[str]) -> None:
    """``placed``: items placed before this round, whose placement is this round's N."""
    assert isinstance(tracker, FixedThresholdTracker)
    for item in tracker.tracked():
        tier, n_value = tracker.get_tier(item), tracker.get_n_value(item)
        assert tier == tracker.tier_for(n_value), f"{item}: N {n_value} but in {tier}"
        previous = before.get(item)
        if previous and previous[0] != "active" and tier != "active":
            expected = previous[1] if item in placed else previous[1] + 1
            assert n_value == expected, f"{item}: a cached item ages by one round"


def _check_gated(entries: list[TierEntry], tracker: TierTracker) -> None:
    assert isinstance(tracker, GatedRippleTracker)
    for item in tracker.tracked():
        tier = tracker.get_tier(item)
        if tier != "active":
            assert tracker.get_n_value(item) >= tracker.rules[tier].entry_n
    for entry in entries:
        if entry.reason == "promotion":
            info = tracker.info(entry.item)
            assert info is not None
            # The entry is announced in the round it happens; the item's age is final then.
            assert info.age >= tracker.gates[entry.tier], f"{entry.item} promoted too young"


@pytest.mark.parametrize("policy", ["fixed", "gated"])
@settings(max_examples=150, deadline=None)
@given(start=placements, rounds=st.lists(round_strategy, min_size=1, max_size=30))
def test_policy_invariants(policy: Any, start: dict[str, tuple[str, int]],
                           rounds: list[dict[str, Any]]) -> None:
    entries: list[TierEntry] = []
    tracker, contents = new_tracker(policy=policy, on_entry=entries.append), Contents()
    for item, (tier, extra) in sorted(start.items()):
        rule = tracker.rules[tier]
        top = rule.promotion_threshold - 1 if rule.promotion_threshold else rule.entry_n + 3
        tracker.place(item, tier, contents(item),  # type: ignore[arg-type]
                      n_value=min(rule.entry_n + extra, top))
    placed = set(start)
    for step in rounds:
        change_files(contents, step)
        for item in sorted(step["demoted"]):
            tracker.demote(item)
        before = _snapshot(tracker)
        entries.clear()
        changes = tracker.update_after_response(step["items"], contents, step["modified"])
        _check_common(before, tracker, contents, changes)
        if policy == "fixed":
            _check_fixed(before, tracker, placed)
        else:
            _check_gated(entries, tracker)
        placed.clear()
        restored = new_tracker(policy=policy)
        restored.load_dict(tracker.to_dict())
        assert restored.to_dict() == tracker.to_dict()
