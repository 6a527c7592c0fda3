"""The fixed-threshold tracker ripple promotion set out to replace, as a policy of its own.

Every round, every item not in play ages by one; an item's N is the number of rounds
it has been unchanged (and not read). It sits in L3 from one round on and in L2, L1,
L0 once N reaches ``fixed_thresholds`` (5, 10, 20 by default). A modified or
re-activated item returns to Active with N=0, as under ripple.

Initial placement puts an item at its tier's threshold (L1: N=10), as if it had been
unchanged that long, and that is its N for the round it is placed in. Tiers only move up: if the thresholds are raised between two
runs, a restored item keeps its tier until its N catches up.
"""

from __future__ import annotations

from collections.abc import Mapping

from sari_ripple.config import ACTIVE, CACHE_TIERS, Tier, TierRule, fixed_rules
from sari_ripple.tracking import EntryCallback, TierTracker

_RANK = {tier: index for index, tier in enumerate(CACHE_TIERS)}


class FixedThresholdTracker(TierTracker):
    """Tiers by rounds unchanged: L3 from 1, L2, L1, L0 at the fixed thresholds.

    :param rules: the fixed policy's rules (:func:`~sari_ripple.config.fixed_rules`;
        L2/L1/L0 at 5/10/20 rounds when None).
    :param on_entry: called with every :class:`~sari_core.models.TierEntry`, in order.
    """

    policy = "fixed"

    def __init__(self, rules: Mapping[str, TierRule] | None = None,
                 on_entry: EntryCallback | None = None) -> None:
        super().__init__(fixed_rules() if rules is None else rules, on_entry)

    def tier_for(self, n_value: int) -> Tier:
        """The tier of an item unchanged for ``n_value`` rounds (Active at 0)."""
        tier: Tier = ACTIVE
        for candidate in CACHE_TIERS:
            if n_value >= self.rules[candidate].entry_n:
                tier = candidate
        return tier

    def _check_placement(self, tier: Tier, n_value: int) -> None:
        # Under this policy N *is* the tier: an item sits where its rounds unchanged put it.
        if tier != ACTIVE and self.tier_for(n_value) != tier:
            raise ValueError(f"an item unchanged for {n_value} rounds sits in "
                             f"{self.tier_for(n_value)}, not {tier}, under the fixed policy")

    def _advance(self, leaving_active: list[str]) -> None:
        """Age every cached item by one round; the ones reaching a threshold move up.

        Entries are announced as they happen in ripple's order: the items
        leaving Active (in activation order), then the promotions, tier by tier upwards.
        """
        leaving = set(leaving_active)
        promoted: list[tuple[int, str, Tier]] = []
        for item, info in self._items.items():
            if info.tier == ACTIVE or item in leaving or item in self._placed:
                continue
            info.n_value += 1
            target = self.tier_for(info.n_value)
            if target != ACTIVE and _RANK[target] > _RANK[info.tier]:
                promoted.append((_RANK[target], item, info.tier))
        for item in leaving_active:
            info = self._items[item]
            info.tier, info.n_value = "L3", self.rules["L3"].entry_n
            self._emit(item, "L3", ACTIVE, "inactive")
        for rank, item, previous in sorted(promoted):
            self._items[item].tier = CACHE_TIERS[rank]
            self._emit(item, CACHE_TIERS[rank], previous, "promotion")
