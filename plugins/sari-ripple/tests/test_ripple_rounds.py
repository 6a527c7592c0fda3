"""The worked ripple example (Round 5 with B already in L3): every tier and N after every round."""

from __future__ import annotations

import pytest
from ripple_workspace import Contents, TierState, placed, play, tier_state

from sari_core.models import TierEntry
from sari_ripple import RippleTracker

# (items in Active context, items modified, expected state, expected {item: new_tier})
SEED_ROUNDS: list[tuple[list[str], set[str], TierState, dict[str, str]]] = [
    (["A", "B", "C"], set(), {"active": {"A": 0, "B": 0, "C": 0}},
     {"A": "active", "B": "active", "C": "active"}),
    (["A"], set(), {"L3": {"B": 4, "C": 3}, "active": {"A": 0}},
     {"B": "L3", "C": "L3"}),
    (["A", "B"], {"B"}, {"L3": {"C": 3}, "active": {"A": 0, "B": 0}},
     {"B": "active"}),
    (["A"], set(), {"L3": {"B": 3, "C": 4}, "active": {"A": 0}},
     {"B": "L3"}),
    # B is already in L3 after round 4, so nothing enters L3 in round 5.
    (["A", "D"], set(), {"L3": {"B": 3, "C": 4}, "active": {"A": 0, "D": 0}},
     {"D": "active"}),
    (["A"], set(), {"L3": {"B": 4, "C": 5, "D": 3}, "active": {"A": 0}},
     {"D": "L3"}),
    (["A"], set(), {"L3": {"B": 4, "C": 5, "D": 3}, "active": {"A": 0}},
     {}),
]


def test_seed_rounds_one_to_seven() -> None:
    tracker = RippleTracker()
    for number, moved, (_, _, expected, changes) in play(tracker, Contents(), SEED_ROUNDS):
        assert tier_state(tracker) == expected, f"round {number}"
        assert moved == changes, f"round {number}"


def test_seed_rounds_announce_every_entry_in_order() -> None:
    entries: list[TierEntry] = []
    tracker = RippleTracker(on_entry=entries.append)
    announced: list[list[tuple[str, str, str | None, int, str]]] = []
    for _ in play(tracker, Contents(), SEED_ROUNDS):
        announced.append([(e.item, e.tier, e.previous_tier, e.n_value, e.reason)
                          for e in entries])
        entries.clear()
    assert announced == [
        [("A", "active", None, 0, "initial"), ("B", "active", None, 0, "initial"),
         ("C", "active", None, 0, "initial")],
        [("B", "L3", "active", 3, "inactive"), ("C", "L3", "active", 3, "inactive")],
        [("B", "active", "L3", 0, "modified")],
        [("B", "L3", "active", 3, "inactive")],
        [("D", "active", None, 0, "initial")],
        [("D", "L3", "active", 3, "inactive")],
        [],
    ]


CASCADE_START: TierState = {"L3": {"X": 5, "Y": 5}, "L2": {"M": 8, "P": 8}, "L1": {"Q": 11}}


def _tracker_in(state: TierState, entries: list[TierEntry] | None = None) -> RippleTracker:
    return placed(RippleTracker(), state, Contents(), entries)


def test_cascade_example_exactly_as_written() -> None:
    entries: list[TierEntry] = []
    tracker = _tracker_in({**CASCADE_START, "active": {"F": 0}}, entries)
    moved = tracker.update_after_response([], Contents())
    assert tier_state(tracker) == {"L0": {"Q": 13}, "L1": {"M": 10, "P": 10},
                                   "L2": {"X": 6, "Y": 6}, "L3": {"F": 3}}
    assert moved == {"F": "L3", "M": "L1", "P": "L1", "Q": "L0", "X": "L2", "Y": "L2"}
    # Steps 1-12 of the example, entry by entry (N as it was when the item entered).
    assert [(e.item, e.tier, e.previous_tier, e.n_value, e.reason) for e in entries] == [
        ("F", "L3", "active", 3, "inactive"),
        ("X", "L2", "L3", 6, "promotion"),
        ("Y", "L2", "L3", 6, "promotion"),
        ("M", "L1", "L2", 10, "promotion"),
        ("P", "L1", "L2", 10, "promotion"),
        ("Q", "L0", "L1", 13, "promotion"),
    ]


# The cascade one step at a time: the batch and cascade rules, each in its own row.
# (start, items leaving Active this round in order, expected state)
CASCADE_TABLE: list[tuple[str, TierState, TierState]] = [
    ("promoted together, X and Y do not increment each other",
     {"L3": {"X": 5, "Y": 5}, "active": {"F": 0}},
     {"L2": {"X": 6, "Y": 6}, "L3": {"F": 3}}),
    ("each member of a batch increments the items already there",
     {"L3": {"X": 5, "Y": 5}, "L2": {"M": 6}, "active": {"F": 0}},
     {"L2": {"M": 8, "X": 6, "Y": 6}, "L3": {"F": 3}}),
    ("promotions are checked after the whole batch entered",
     {"L3": {"X": 5, "Y": 5}, "L2": {"M": 7, "P": 8}, "active": {"F": 0}},
     {"L1": {"M": 9, "P": 10}, "L2": {"X": 6, "Y": 6}, "L3": {"F": 3}}),
    ("L0 is terminal: entries increment, nothing leaves",
     {"L1": {"Q": 11}, "L2": {"M": 8}, "L3": {"X": 5}, "L0": {"Z": 40}, "active": {"F": 0}},
     {"L0": {"Q": 12, "Z": 41}, "L1": {"M": 9}, "L2": {"X": 6}, "L3": {"F": 3}}),
]


@pytest.mark.parametrize(("start", "expected"), [(row[1], row[2]) for row in CASCADE_TABLE],
                         ids=[row[0] for row in CASCADE_TABLE])
def test_cascade_rules(start: TierState, expected: TierState) -> None:
    tracker = _tracker_in(start)
    tracker.update_after_response([], Contents())
    assert tier_state(tracker) == expected
