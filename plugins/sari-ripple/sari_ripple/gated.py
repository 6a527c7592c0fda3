"""Gated ripple: ripple promotion, where a promotion also needs a minimum age.

Ripple decides *when* a tier changes: promotions out of a tier are checked only when
items enter it, so they come in batches, and a tier that nothing enters stays
byte-identical. Its N, though, counts entries by other items, not time: when many
files change per round, N rises within a few rounds and files that were edited a
moment ago reach L0, where their next edit costs the whole cached prefix.

The gate adds the fixed policy's measure of stability to decide *who* may move: an
item whose N reached its tier's promotion threshold is promoted only if it has been
unchanged for at least the fixed threshold of the tier it would enter (5 rounds for
L2, 10 for L1, 20 for L0 by default); otherwise it stays, its N still rising, and is
promoted with a later batch. Everything else is ripple's, so ripple's examples
hold whenever the items are old enough.
"""

from __future__ import annotations

from collections.abc import Mapping

from sari_ripple.config import Tier, TierRule, fixed_rules
from sari_ripple.tracker import RippleTracker
from sari_ripple.tracking import EntryCallback


class GatedRippleTracker(RippleTracker):
    """Ripple promotion gated by age (rounds unchanged since the item was last Active).

    :param rules: ripple's tier rules (ripple's ``TIER_CONFIG`` when None).
    :param on_entry: called with every :class:`~sari_core.models.TierEntry`, in order.
    :param gates: the age an item needs to enter each tier by promotion
        (the fixed thresholds' entry N when None: L2 5, L1 10, L0 20).
    """

    policy = "gated"

    def __init__(self, rules: Mapping[str, TierRule] | None = None,
                 on_entry: EntryCallback | None = None,
                 gates: Mapping[str, int] | None = None) -> None:
        super().__init__(rules, on_entry)
        self.gates: dict[str, int] = dict(gates) if gates is not None else {
            tier: rule.entry_n for tier, rule in fixed_rules().items()}

    def _may_promote(self, item: str, tier: Tier) -> bool:
        return self._items[item].age >= self.gates.get(tier, 0)
