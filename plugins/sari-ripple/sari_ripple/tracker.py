"""The ripple-promotion stability tracker.

An item leaving Active enters L3 with N=3; an item *entering* a tier increments the
N of the other items already there; an item whose N reaches its tier's promotion
threshold moves up one tier and keeps its N; promotions cascade tier by tier. A
modified or re-activated item returns to Active with N=0 (see
:class:`~sari_ripple.tracking.TierTracker` for what every policy shares).

Batch rules: items entering L3 from Active in one round enter one after
another, each incrementing everyone already there, earlier entrants included;
items promoted out of a tier in one step enter the next tier as a batch whose
members do not increment each other; promotions out of a tier are checked once
the whole batch has entered it.
"""

from __future__ import annotations

from collections.abc import Mapping

from sari_ripple.config import ACTIVE, CACHE_TIERS, Tier, TierRule, tier_rules
from sari_ripple.tracking import (
    STATE_VERSION,
    Content,
    ContentGetter,
    EntryCallback,
    StabilityInfo,
    TierTracker,
    content_hash,
)

__all__ = ["STATE_VERSION", "Content", "ContentGetter", "EntryCallback", "RippleTracker",
           "StabilityInfo", "content_hash"]


class RippleTracker(TierTracker):
    """Assigns context items to prompt-cache tiers by ripple promotion.

    :param rules: per-tier entry N and promotion threshold (``TIER_CONFIG``
        when None).
    :param on_entry: called with every :class:`~sari_core.models.TierEntry`, in order.
    """

    policy = "ripple"

    def __init__(self, rules: Mapping[str, TierRule] | None = None,
                 on_entry: EntryCallback | None = None) -> None:
        super().__init__(tier_rules() if rules is None else rules, on_entry)

    def _may_promote(self, item: str, tier: Tier) -> bool:
        """Whether an item whose N reached its threshold may enter ``tier`` now (always)."""
        return True

    def _advance(self, leaving_active: list[str]) -> None:
        """Enter L3 one after another, then promote batch by batch, tier by tier."""
        batch: list[tuple[str, Tier]] = [(item, ACTIVE) for item in leaving_active]
        sequential = True  # only the entries from Active increment each other
        for index, tier in enumerate(CACHE_TIERS):
            if not batch:
                return
            rule = self.rules[tier]
            members = [item for item, info in self._items.items() if info.tier == tier]
            already_there = list(members)
            for item, previous in batch:
                for other in members if sequential else already_there:
                    self._items[other].n_value += 1
                info = self._items[item]
                info.tier = tier
                info.n_value = rule.entry_n if previous == ACTIVE else max(info.n_value,
                                                                           rule.entry_n)
                members.append(item)
                self._emit(item, tier, previous, "inactive" if previous == ACTIVE else "promotion")
            if rule.promotion_threshold is None:
                return
            threshold, upper = rule.promotion_threshold, CACHE_TIERS[index + 1]
            batch = [(item, tier) for item in sorted(members)
                     if self._items[item].n_value >= threshold and self._may_promote(item, upper)]
            sequential = False
