"""Every edge case of ripple promotion, and those of initial placement."""

from __future__ import annotations

from ripple_workspace import Contents, tier_state

from sari_core.models import TierEntry
from sari_ripple import RippleTracker


def _active_then_idle(tracker: RippleTracker, contents: Contents, items: list[str]) -> None:
    tracker.update_after_response(items, contents)
    tracker.update_after_response([], contents)


def test_several_items_entering_l3_in_one_round_enter_one_after_another() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.update_after_response(["A", "B", "C", "D"], contents)
    tracker.update_after_response([], contents)
    # The first entrant found L3 empty; each later one incremented all before it.
    assert tier_state(tracker) == {"L2": {"A": 6}, "L3": {"B": 5, "C": 4, "D": 3}}


def test_l3_entry_order_is_the_order_items_became_active() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.update_after_response(["C", "A"], contents)
    tracker.update_after_response(["C", "A", "B"], contents)
    tracker.update_after_response([], contents)
    assert tier_state(tracker) == {"L3": {"C": 5, "A": 4, "B": 3}}


def test_bulk_cascade_finishes_one_tier_before_the_next() -> None:
    entries: list[TierEntry] = []
    tracker, contents = RippleTracker(on_entry=entries.append), Contents()
    for item, n_value in {"a": 5, "b": 5, "c": 5}.items():
        tracker.place(item, "L3", contents(item), n_value=n_value)
    for item, n_value in {"m": 8, "p": 8}.items():
        tracker.place(item, "L2", contents(item), n_value=n_value)
    tracker.place("q", "L1", contents("q"), n_value=11)
    entries.clear()
    tracker.update_after_response(["f"], contents)
    tracker.update_after_response([], contents)
    tiers_in_order = [entry.tier for entry in entries if entry.reason == "promotion"]
    assert tiers_in_order == ["L2", "L2", "L2", "L1", "L1", "L0"]
    assert tier_state(tracker) == {"L0": {"q": 13}, "L1": {"m": 11, "p": 11},
                                   "L2": {"a": 6, "b": 6, "c": 6}, "L3": {"f": 3}}


def test_entering_an_empty_tier_increments_nothing() -> None:
    tracker, contents = RippleTracker(), Contents()
    _active_then_idle(tracker, contents, ["A"])
    assert tier_state(tracker) == {"L3": {"A": 3}}


def test_an_item_that_enters_a_tier_keeps_its_entry_n() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.place("old", "L3", contents("old"), n_value=4)
    _active_then_idle(tracker, contents, ["new"])
    assert tier_state(tracker) == {"L3": {"new": 3, "old": 5}}


def test_re_activated_item_returns_to_active_with_n_zero() -> None:
    entries: list[TierEntry] = []
    tracker, contents = RippleTracker(on_entry=entries.append), Contents()
    tracker.place("A", "L1", contents("A"), n_value=11)
    entries.clear()
    assert tracker.update_after_response(["A"], contents) == {"A": "active"}
    assert (tracker.get_tier("A"), tracker.get_n_value("A")) == ("active", 0)
    assert [(e.previous_tier, e.tier, e.reason) for e in entries] == [("L1", "active",
                                                                       "reactivated")]


def test_rapid_churn_ages_the_stable_items_of_l3() -> None:
    tracker, contents = RippleTracker(), Contents()
    _active_then_idle(tracker, contents, ["stable"])
    for bounce in range(1, 4):
        tracker.update_after_response(["churn"], contents)
        tracker.update_after_response([], contents)
        if bounce < 3:
            assert tracker.get_n_value("stable") == 3 + bounce
    # Third entry of the churning file: stable reached 6 and moved up.
    assert tier_state(tracker) == {"L2": {"stable": 6}, "L3": {"churn": 3}}


def test_modified_while_cached_returns_to_active_even_if_not_listed() -> None:
    entries: list[TierEntry] = []
    tracker, contents = RippleTracker(on_entry=entries.append), Contents()
    tracker.place("A", "L2", contents("A"), n_value=7)
    contents.touch("A")  # changed on disk; nobody told the tracker
    entries.clear()
    assert tracker.update_after_response([], contents) == {"A": "active"}
    assert [(e.item, e.tier, e.reason) for e in entries] == [("A", "active", "modified")]
    tracker.update_after_response([], contents)
    assert tier_state(tracker) == {"L3": {"A": 3}}


def test_modified_items_are_active_even_when_missing_from_items() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.place("A", "L3", contents("A"))
    contents.touch("A")
    tracker.update_after_response(["B"], contents, modified={"A"})
    assert tier_state(tracker) == {"active": {"A": 0, "B": 0}}


def test_demote_moves_a_cached_item_to_active_at_once() -> None:
    entries: list[TierEntry] = []
    tracker, contents = RippleTracker(on_entry=entries.append), Contents()
    tracker.place("A", "L0", contents("A"), n_value=30)
    assert tracker.demote("A", "new text") is True
    assert (tracker.get_tier("A"), tracker.get_n_value("A")) == ("active", 0)
    assert entries[-1].reason == "modified" and entries[-1].previous_tier == "L0"
    assert tracker.demote("A") is False  # already Active: no second entry
    assert tracker.demote("never-seen") is False


def test_deleted_item_is_dropped_on_the_next_update() -> None:
    tracker, contents = RippleTracker(), Contents()
    _active_then_idle(tracker, contents, ["A", "B"])
    contents.deleted.add("A")
    assert "A" in tracker
    changes = tracker.update_after_response([], contents)
    assert "A" not in tracker and tracker.last_dropped == ["A"]
    assert changes == {}
    assert tier_state(tracker) == {"L3": {"B": 3}}


def test_deleted_item_listed_as_active_is_not_tracked() -> None:
    tracker, contents = RippleTracker(), Contents()
    contents.deleted.add("gone")
    assert tracker.update_after_response(["gone", "A"], contents) == {"A": "active"}
    assert "gone" not in tracker


def test_cached_item_not_in_the_context_stays_tracked() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.place("A", "L1", contents("A"))
    for _ in range(3):
        tracker.update_after_response(["B"], contents)
    assert (tracker.get_tier("A"), tracker.get_n_value("A")) == ("L1", 9)


def test_l0_is_terminal() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.place("top", "L0", contents("top"), n_value=12)
    for index in range(5):
        tracker.place(f"g{index}", "L1", contents(f"g{index}"), n_value=11)
    tracker.place("h", "L2", contents("h"), n_value=8)
    tracker.place("i", "L3", contents("i"), n_value=5)
    _active_then_idle(tracker, contents, ["x"])
    # x -> L3 lifts i to L2, which lifts h to L1, which lifts all five g to L0.
    assert tier_state(tracker) == {
        "L0": {"top": 17, **{f"g{index}": 12 for index in range(5)}},
        "L1": {"h": 9}, "L2": {"i": 6}, "L3": {"x": 3}}
    _active_then_idle(tracker, contents, ["y"])
    assert tracker.get_tier("top") == "L0" and tracker.get_n_value("top") == 17


def test_untracked_items_are_active_with_n_zero() -> None:
    tracker = RippleTracker()
    assert tracker.get_tier("nothing") == "active"
    assert tracker.get_n_value("nothing") == 0
    assert tracker.get_items_by_tier(["b", "a"]) == {"L0": [], "L1": [], "L2": [], "L3": [],
                                                      "active": ["a", "b"]}


def test_items_by_tier_is_in_prompt_order_and_sorted() -> None:
    tracker, contents = RippleTracker(), Contents()
    for item, tier in [("z", "L3"), ("a", "L3"), ("m", "L0"), ("b", "L1")]:
        tracker.place(item, tier, contents(item))  # type: ignore[arg-type]
    grouped = tracker.get_items_by_tier()
    assert list(grouped) == ["L0", "L1", "L2", "L3", "active"]
    assert grouped["L3"] == ["a", "z"]
