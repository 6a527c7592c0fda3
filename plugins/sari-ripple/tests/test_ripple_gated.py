"""The gated policy: ripple promotion that also needs the item unchanged for a while."""

from __future__ import annotations

import pytest
from ripple_workspace import Contents, TierState, placed, play, tier_state
from test_ripple_rounds import CASCADE_START, CASCADE_TABLE, SEED_ROUNDS

from sari_core.models import TierEntry
from sari_ripple import GatedRippleTracker, RippleSettings, new_tracker

NO_GATES = {"L2": 0, "L1": 0, "L0": 0}


def _placed(state: TierState, gates: dict[str, int] | None = None,
            entries: list[TierEntry] | None = None) -> tuple[GatedRippleTracker, Contents]:
    contents = Contents()
    return placed(GatedRippleTracker(gates=gates), state, contents, entries), contents


@pytest.mark.parametrize("gates", [None, NO_GATES], ids=["default gates", "no gates"])
def test_seed_rounds_hold_under_the_gate(gates: dict[str, int] | None) -> None:
    # Nothing is promoted in the seven worked rounds, so the gate changes none of them.
    tracker = GatedRippleTracker(gates=gates)
    for number, moved, (_, _, expected, changes) in play(tracker, Contents(), SEED_ROUNDS):
        assert moved == changes
        assert tier_state(tracker) == expected, f"round {number}"


@pytest.mark.parametrize(("start", "expected"), [(row[1], row[2]) for row in CASCADE_TABLE],
                         ids=[row[0] for row in CASCADE_TABLE])
def test_without_gates_it_is_ripple(start: TierState, expected: TierState) -> None:
    tracker, contents = _placed(start, NO_GATES)
    tracker.update_after_response([], contents)
    assert tier_state(tracker) == expected


# Ripple's cascade after ``idle`` rounds in which nothing happened (items only age):
# (idle rounds, expected state once F has left Active).
CASCADE_BY_AGE: list[tuple[int, TierState]] = [
    # Ages 2 (placed items) and 1 (F): nobody may move up; X and Y wait in L3 past N=6.
    (0, {"L1": {"Q": 11}, "L2": {"M": 8, "P": 8}, "L3": {"F": 3, "X": 6, "Y": 6}}),
    # Ages 7: X and Y may enter L2 (gate 5), M and P may not enter L1 (gate 10).
    (5, {"L1": {"Q": 11}, "L2": {"M": 10, "P": 10, "X": 6, "Y": 6}, "L3": {"F": 3}}),
    # Ages 12: L1 is open too, L0 (gate 20) not yet.
    (10, {"L1": {"M": 10, "P": 10, "Q": 13}, "L2": {"X": 6, "Y": 6}, "L3": {"F": 3}}),
    # Ages 22: ripple's cascade exactly.
    (20, {"L0": {"Q": 13}, "L1": {"M": 10, "P": 10}, "L2": {"X": 6, "Y": 6}, "L3": {"F": 3}}),
]


@pytest.mark.parametrize(("idle", "expected"), CASCADE_BY_AGE,
                         ids=[f"idle {row[0]}" for row in CASCADE_BY_AGE])
def test_cascade_waits_for_age(idle: int, expected: TierState) -> None:
    tracker, contents = _placed(CASCADE_START)
    for _ in range(idle):
        assert tracker.update_after_response([], contents) == {}
    tracker.update_after_response(["F"], contents)
    tracker.update_after_response([], contents)
    assert tier_state(tracker) == expected


# An item held back by the gate is promoted with a later batch into its tier, not on its
# own: a tier that nothing enters does not change. (items Active this round, expected state)
WAITING: list[tuple[list[str], TierState | None]] = [
    (["F"], None),
    ([], {"L1": {"Q": 11}, "L2": {"M": 10, "P": 10, "X": 6, "Y": 6}, "L3": {"F": 3}}),
    (["G"], None),
    # Ages 9: M and P are not old enough for L1 yet (gate 10); G enters L3 only.
    ([], {"L1": {"Q": 11}, "L2": {"M": 10, "P": 10, "X": 6, "Y": 6}, "L3": {"F": 4, "G": 3}}),
    (["H"], None),
    # Ages 11: M and P could enter L1, but nothing entered L2, so they are not checked.
    ([], {"L1": {"Q": 11}, "L2": {"M": 10, "P": 10, "X": 6, "Y": 6},
          "L3": {"F": 5, "G": 4, "H": 3}}),
    (["I"], None),
    # F reaches 6 at age 7 and enters L2; that batch lifts M and P (age 13) into L1; Q's
    # N passes 12 but at age 13 it may not enter L0 (gate 20).
    ([], {"L1": {"M": 11, "P": 11, "Q": 13}, "L2": {"F": 6, "X": 7, "Y": 7},
          "L3": {"G": 5, "H": 4, "I": 3}}),
]


def test_an_item_held_back_moves_with_a_later_batch() -> None:
    entries: list[TierEntry] = []
    tracker, contents = _placed(CASCADE_START, entries=entries)
    for _ in range(5):
        tracker.update_after_response([], contents)
    for number, (items, expected) in enumerate(WAITING, start=1):
        tracker.update_after_response(items, contents)
        if expected is not None:
            assert tier_state(tracker) == expected, f"round {number}"
    promotions = [(e.item, e.previous_tier, e.tier) for e in entries if e.reason == "promotion"]
    assert promotions == [("X", "L3", "L2"), ("Y", "L3", "L2"), ("F", "L3", "L2"),
                          ("M", "L2", "L1"), ("P", "L2", "L1")]


def test_a_modified_item_starts_its_age_again() -> None:
    tracker, contents = _placed({"L3": {"A": 5}, "active": {"B": 0}})
    for _ in range(6):
        tracker.update_after_response([], contents)
    contents.touch("A")
    assert tracker.demote("A", contents("A"))
    tracker.update_after_response(["C"], contents)
    tracker.update_after_response([], contents)
    assert (tracker.info("A").age, tracker.info("B").age) == (2, 8)  # type: ignore[union-attr]
    # A (N 6, held back at age 7) went back to Active; its new age counts from there.
    assert tier_state(tracker) == {"L3": {"A": 4, "B": 5, "C": 3}}


def test_new_tracker_builds_the_gate_from_the_fixed_thresholds() -> None:
    tracker = new_tracker(RippleSettings(policy="gated",
                                         fixed_thresholds={"L2": 3, "L1": 6, "L0": 9}))
    assert isinstance(tracker, GatedRippleTracker) and tracker.policy == "gated"
    assert tracker.gates == {"L3": 1, "L2": 3, "L1": 6, "L0": 9}
    assert GatedRippleTracker().gates == {"L3": 1, "L2": 5, "L1": 10, "L0": 20}


def test_gated_state_keeps_the_ages() -> None:
    tracker, contents = _placed(CASCADE_START)
    for _ in range(3):
        tracker.update_after_response([], contents)
    data = tracker.to_dict()
    assert data["policy"] == "gated" and data["items"]["Q"]["age"] == 3
    restored = GatedRippleTracker.from_dict(data)
    assert restored.to_dict() == data
    with pytest.raises(ValueError, match="policy 'gated'"):
        new_tracker(policy="fixed").load_dict(data)
