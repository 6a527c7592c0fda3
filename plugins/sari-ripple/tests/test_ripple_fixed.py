"""The fixed-threshold policy: every tier and N after every round (table-driven)."""

from __future__ import annotations

import pytest
from ripple_workspace import Contents, TierState, play, tier_state

from sari_core.models import TierEntry
from sari_ripple import FixedThresholdTracker, RippleSettings, fixed_rules, new_tracker
from sari_ripple.config import TierRule

# Small thresholds keep the tables short: L3 from 1 round unchanged, L2 from 2, L1 3, L0 4.
SMALL = fixed_rules({"L2": 2, "L1": 3, "L0": 4})

# (items in Active context, items modified, expected state, expected {item: new_tier})
FIXED_ROUNDS: list[tuple[list[str], set[str], TierState, dict[str, str]]] = [
    (["A", "B", "C"], set(), {"active": {"A": 0, "B": 0, "C": 0}},
     {"A": "active", "B": "active", "C": "active"}),
    (["A"], set(), {"L3": {"B": 1, "C": 1}, "active": {"A": 0}},
     {"B": "L3", "C": "L3"}),
    (["A", "B"], {"B"}, {"L2": {"C": 2}, "active": {"A": 0, "B": 0}},
     {"B": "active", "C": "L2"}),
    (["A"], set(), {"L1": {"C": 3}, "L3": {"B": 1}, "active": {"A": 0}},
     {"B": "L3", "C": "L1"}),
    (["A", "D"], set(), {"L0": {"C": 4}, "L2": {"B": 2}, "active": {"A": 0, "D": 0}},
     {"B": "L2", "C": "L0", "D": "active"}),
    (["A"], set(), {"L0": {"C": 5}, "L1": {"B": 3}, "L3": {"D": 1}, "active": {"A": 0}},
     {"B": "L1", "D": "L3"}),
    ([], set(), {"L0": {"B": 4, "C": 6}, "L2": {"D": 2}, "L3": {"A": 1}},
     {"A": "L3", "B": "L0", "D": "L2"}),
    # C is read again: back to Active from L0; everybody else ages on.
    (["C"], set(), {"L0": {"B": 5}, "L1": {"D": 3}, "L2": {"A": 2}, "active": {"C": 0}},
     {"A": "L2", "C": "active", "D": "L1"}),
]


def test_fixed_rounds_every_tier_and_n() -> None:
    tracker = FixedThresholdTracker(SMALL)
    for number, moved, (_, _, expected, changes) in play(tracker, Contents(), FIXED_ROUNDS):
        assert tier_state(tracker) == expected, f"round {number}"
        assert moved == changes, f"round {number}"


def test_fixed_rounds_announce_every_entry_leavers_first_then_promotions_upwards() -> None:
    entries: list[TierEntry] = []
    tracker = FixedThresholdTracker(SMALL, on_entry=entries.append)
    announced = []
    for _ in play(tracker, Contents(), FIXED_ROUNDS):
        announced.append([(e.item, e.tier, e.previous_tier, e.n_value, e.reason)
                          for e in entries])
        entries.clear()
    assert announced[2] == [("B", "active", "L3", 0, "modified"), ("C", "L2", "L3", 2,
                                                                   "promotion")]
    assert announced[6] == [("A", "L3", "active", 1, "inactive"),
                            ("D", "L2", "L3", 2, "promotion"),
                            ("B", "L0", "L1", 4, "promotion")]
    assert announced[7] == [("C", "active", "L0", 0, "reactivated"),
                            ("A", "L2", "L3", 2, "promotion"),
                            ("D", "L1", "L2", 3, "promotion")]


# The fixed tracker's thresholds: (rounds idle after being Active, tier, N).
DEFAULT_AGING: list[tuple[int, str, int]] = [
    (0, "active", 0), (1, "L3", 1), (4, "L3", 4), (5, "L2", 5), (9, "L2", 9),
    (10, "L1", 10), (19, "L1", 19), (20, "L0", 20), (35, "L0", 35),
]


@pytest.mark.parametrize(("idle", "tier", "n_value"), DEFAULT_AGING)
def test_default_thresholds_are_5_10_20_unchanged_rounds(idle: int, tier: str,
                                                         n_value: int) -> None:
    tracker, contents = FixedThresholdTracker(), Contents()
    tracker.update_after_response(["x"], contents)
    for _ in range(idle):
        tracker.update_after_response([], contents)
    assert (tracker.get_tier("x"), tracker.get_n_value("x")) == (tier, n_value)


def test_fixed_rules_in_tier_rule_form() -> None:
    assert fixed_rules() == {"L3": TierRule(1, 5), "L2": TierRule(5, 10),
                             "L1": TierRule(10, 20), "L0": TierRule(20, None)}


@pytest.mark.parametrize("thresholds", [
    {"L2": 5, "L1": 10},                      # L0 missing
    {"L2": 5, "L1": 10, "L0": 20, "L3": 1},   # L3 is not configurable: it starts at 1
    {"L2": 1, "L1": 10, "L0": 20},            # L2 must come after L3's single round
    {"L2": 5, "L1": 5, "L0": 20},             # not rising
    {"L2": 5, "L1": 10, "L0": 20.5},
])
def test_invalid_fixed_thresholds_are_refused(thresholds: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="fixed_thresholds"):
        RippleSettings(fixed_thresholds=thresholds)  # type: ignore[arg-type]


def test_a_modified_item_resets_and_a_change_on_disk_is_noticed() -> None:
    tracker, contents = FixedThresholdTracker(SMALL), Contents()
    tracker.place("A", "L1", contents("A"))
    contents.touch("A")
    assert tracker.update_after_response([], contents) == {"A": "active"}
    assert tracker.update_after_response([], contents) == {"A": "L3"}
    assert tier_state(tracker) == {"L3": {"A": 1}}
    assert tracker.demote("A") is True
    assert tier_state(tracker) == {"active": {"A": 0}}


def test_a_deleted_item_is_dropped() -> None:
    tracker, contents = FixedThresholdTracker(SMALL), Contents()
    tracker.update_after_response(["A", "B"], contents)
    contents.deleted.add("A")
    assert tracker.update_after_response([], contents) == {"B": "L3"}
    assert tracker.last_dropped == ["A"] and "A" not in tracker


def test_placement_is_at_the_tier_threshold_and_counts_as_this_round() -> None:
    tracker, contents = FixedThresholdTracker(), Contents()
    for item, tier in [("a", "L1"), ("b", "L2"), ("c", "L3"), ("d", "L0")]:
        tracker.place(item, tier, contents(item))  # type: ignore[arg-type]
    tracker.update_after_response(["e"], contents)
    assert tier_state(tracker) == {"L0": {"d": 20}, "L1": {"a": 10}, "L2": {"b": 5},
                                   "L3": {"c": 1}, "active": {"e": 0}}
    tracker.update_after_response([], contents)
    assert tier_state(tracker) == {"L0": {"d": 21}, "L1": {"a": 11}, "L2": {"b": 6},
                                   "L3": {"c": 2, "e": 1}}


@pytest.mark.parametrize(("tier", "n_value"), [("L1", 3), ("L3", 5), ("L0", 19)])
def test_placement_must_agree_with_the_rounds_unchanged(tier: str, n_value: int) -> None:
    with pytest.raises(ValueError, match="fixed policy"):
        FixedThresholdTracker().place("a", tier, "", n_value=n_value)  # type: ignore[arg-type]


def test_raised_thresholds_never_move_a_restored_item_down() -> None:
    tracker, contents = FixedThresholdTracker(), Contents()
    tracker.place("a", "L1", contents("a"), n_value=12)
    raised = FixedThresholdTracker.from_dict(tracker.to_dict(),
                                             fixed_rules({"L2": 10, "L1": 20, "L0": 40}))
    assert raised.update_after_response([], contents) == {}
    assert tier_state(raised) == {"L1": {"a": 13}}


def test_fixed_state_round_trip_and_policy_mismatch() -> None:
    tracker, contents = FixedThresholdTracker(SMALL), Contents()
    for items, _, _, _ in FIXED_ROUNDS[:5]:
        tracker.update_after_response(items, contents)
    data = tracker.to_dict()
    assert data["policy"] == "fixed"
    restored = new_tracker(RippleSettings(policy="fixed",
                                          fixed_thresholds={"L2": 2, "L1": 3, "L0": 4}))
    restored.load_dict(data)
    assert restored.to_dict() == data
    for each in (tracker, restored):
        each.update_after_response([], contents)
    assert tier_state(restored) == tier_state(tracker)
    with pytest.raises(ValueError, match="policy 'fixed'"):
        new_tracker(policy="ripple").load_dict(data)
