"""Random rounds for the property tests of every policy: strategies, applying one, a check.

The policies differ in when items move; what the check here asserts holds for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st
from ripple_workspace import Contents

from sari_ripple import TierTracker

ITEMS = [f"f{index}" for index in range(8)]

round_strategy = st.fixed_dictionaries({
    "items": st.lists(st.sampled_from(ITEMS), max_size=5),
    "modified": st.sets(st.sampled_from(ITEMS), max_size=2),
    "touched": st.sets(st.sampled_from(ITEMS), max_size=2),   # changed on disk, unannounced
    "deleted": st.sets(st.sampled_from(ITEMS), max_size=1),
    "restored": st.sets(st.sampled_from(ITEMS), max_size=1),
    "demoted": st.sets(st.sampled_from(ITEMS), max_size=1),   # an edit between rounds
})
# Items placed before the first round: {item: (tier, N above the tier's entry N)}.
placements = st.dictionaries(st.sampled_from(ITEMS),
                             st.tuples(st.sampled_from(["L3", "L2", "L1", "L0"]),
                                       st.integers(0, 3)), max_size=6)


def change_files(contents: Contents, step: dict[str, Any]) -> None:
    """What happened to the files before a round: restores, deletions, then changes."""
    contents.deleted.difference_update(step["restored"])
    contents.deleted.update(step["deleted"])
    for item in step["touched"] | step["modified"]:
        contents.touch(item)


def assert_n_rose_or_reset(before: Mapping[str, tuple[Any, ...]], tracker: TierTracker,
                           contents: Contents) -> None:
    """Since ``before`` (``{item: (tier, N, ...)}``), no item's N fell except back to Active's 0,
    and only the items whose files are gone were dropped."""
    for item, (_tier, n_value, *_) in before.items():
        if item not in tracker:
            assert item in contents.deleted, f"{item} dropped while its file exists"
            continue
        if tracker.get_n_value(item) < n_value:
            assert (tracker.get_tier(item), tracker.get_n_value(item)) == ("active", 0), \
                f"{item}: N fell outside a return to Active"
