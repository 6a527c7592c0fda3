"""Adaptive: the oldest-changed items first, one block per item, breakpoints where the cache lasts.

Prompt caching serves a prefix: everything up to the first item that changed since the last
request. So the layout puts the items that have been out of play longest first (by age: rounds
since the item was last Active; ties by name), the newest last. Between two rounds that order
only changes at the items that changed, which all move to the end.

Each item is a content block of its own, so every item boundary is a place the provider's
cache lookup can find an earlier request's breakpoint (it looks up to 20 blocks back from each
breakpoint): when the breakpoints move, the prefix cached under last round's still serves.

Where the four breakpoints go is learnt from the session itself. After every round the tracker
records the age the oldest item that changed (or left the context) had: a prefix of the items
at least that old would have survived, anything older would not. The breakpoints are then
put at the ages that, over every round seen so far, would have served the most tokens of the
present layout (greedily, one breakpoint at a time; ties to the younger age). There is no
tuned constant: before the first round has been seen, the breakpoints sit at the token
quartiles of the cached part.

Tiers name the stretches between breakpoints: ``L0`` ends at the first, ``L1`` at the second,
``L2`` at the third, and ``L3`` is the rest of the items out of play (the fourth breakpoint,
when there is one, inside it); ``active`` is in play. An item's N is its age.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

from sari_ripple.config import ACTIVE, CACHE_TIERS, PROMPT_ORDER, Tier, TierRule, fixed_rules
from sari_ripple.plan import LayoutItem, PlanBlock, PromptPlan, TokenCounter
from sari_ripple.tracking import ContentGetter, EntryCallback, TierTracker

MAX_BREAKPOINTS = 4
NOTHING_CHANGED = -1   # a round in which no item changed: every prefix survived
_STABLE_ORDER: tuple[Tier, ...] = tuple(reversed(CACHE_TIERS))   # L0, L1, L2, L3


class AdaptiveTracker(TierTracker):
    """Oldest-changed first, per-item blocks, breakpoints at the ages that served the most.

    :param rules: only used for the N of an initial placement (the fixed rules when None).
    :param on_entry: called with every :class:`~sari_core.models.TierEntry`, in order.
    """

    policy = "adaptive"

    def __init__(self, rules: Mapping[str, TierRule] | None = None,
                 on_entry: EntryCallback | None = None) -> None:
        super().__init__(fixed_rules() if rules is None else rules, on_entry)
        # age of the oldest item that changed in a round -> how many rounds that was
        self.change_ages: dict[int, int] = {}
        self.breakpoint_ages: list[int] = []

    # --- the round ----------------------------------------------------------------------

    def update_after_response(self, items: Iterable[str], get_content: ContentGetter,
                              modified: Iterable[str] | None = None) -> dict[str, Tier]:
        ages = {item: info.age for item, info in self._items.items() if item not in self._placed}
        moved = super().update_after_response(items, get_content, modified)
        broken = [ages[item] for item in self.last_dropped if item in ages]
        broken += [ages[item] for item, info in self._items.items()
                   if item in ages and info.tier == ACTIVE]
        if ages:
            oldest = max(broken, default=NOTHING_CHANGED)
            self.change_ages[oldest] = self.change_ages.get(oldest, 0) + 1
        return moved

    def _advance(self, leaving_active: list[str]) -> None:
        """Items leaving Active join the newest stretch; the layout regroups the rest."""
        for item in leaving_active:
            info = self._items[item]
            info.tier, info.n_value = "L3", info.age
            self._emit(item, "L3", ACTIVE, "inactive")
        for info in self._items.values():
            if info.tier != ACTIVE:
                info.n_value = info.age

    # --- the layout ---------------------------------------------------------------------

    def prompt_order(self, items: Iterable[str]) -> list[str]:
        """The tracked ``items`` in prompt order: out of play oldest first, then Active."""
        present = [item for item in dict.fromkeys(items) if item in self._items]
        return sorted(present, key=lambda item: (self._items[item].tier == ACTIVE,
                                                 -self._items[item].age, item))

    def choose_breakpoint_ages(self, tokens_by_age: Mapping[int, int]) -> list[int]:
        """Up to four ages, oldest first: a breakpoint follows the last item of each age or older.

        :param tokens_by_age: for each age present, the tokens of the items at least that old.
        """
        candidates = sorted(tokens_by_age)
        if not candidates:
            return []
        if not self.change_ages:
            return _quartile_ages(tokens_by_age)
        history = _ChangeHistory(self.change_ages)
        chosen: list[int] = []
        for _ in range(min(MAX_BREAKPOINTS, len(candidates))):
            best = max((age for age in candidates if age not in chosen),
                       key=lambda age: history.served([*chosen, age], tokens_by_age))
            chosen.append(best)
        return sorted(chosen, reverse=True)

    def own_plan(self, items: Iterable[str], tokens_of: TokenCounter
                 ) -> tuple[dict[Tier, list[LayoutItem]], PromptPlan]:
        """The layout by stretch and the prompt plan: one block per item, up to 4 breakpoints."""
        order = self.prompt_order(items)
        tokens = {item: tokens_of(item) for item in order}
        stable = [item for item in order if self._items[item].tier != ACTIVE]
        tokens_by_age: dict[int, int] = {}
        running = 0
        for item in stable:
            running += tokens[item]
            tokens_by_age[self._items[item].age] = running
        self.breakpoint_ages = self.choose_breakpoint_ages(tokens_by_age)
        last_of_age = {self._items[item].age: index for index, item in enumerate(stable)}
        breakpoints = {last_of_age[age] for age in self.breakpoint_ages}
        layout: dict[Tier, list[LayoutItem]] = {tier: [] for tier in PROMPT_ORDER}
        plan = PromptPlan()
        stretch = 0
        for index, item in enumerate(order):
            info = self._items[item]
            tier = ACTIVE if info.tier == ACTIVE else _STABLE_ORDER[min(stretch, 3)]
            if tier != info.tier:
                previous, info.tier = info.tier, tier
                if CACHE_TIERS.index(tier) > CACHE_TIERS.index(previous):
                    self._emit(item, tier, previous, "promotion")
            entry = LayoutItem(item, info.n_value, tokens[item])
            layout[tier].append(entry)
            cached = index in breakpoints
            plan.blocks.append(PlanBlock(tier, [tier], [entry], cached=cached))
            stretch += cached
        return layout, plan

    # --- persistence --------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["change_ages"] = {str(age): rounds for age, rounds in sorted(self.change_ages.items())}
        return data

    def load_dict(self, data: Mapping[str, Any]) -> None:
        super().load_dict(data)
        change_ages: dict[int, int] = {}
        for age, rounds in dict(data.get("change_ages", {})).items():
            try:
                key = int(age)
            except ValueError:
                key = -2
            if key < NOTHING_CHANGED or not isinstance(rounds, int) or rounds < 1:
                raise ValueError(f"invalid adaptive state: change_ages {age!r}: {rounds!r}")
            change_ages[key] = rounds
        self.change_ages = change_ages


class _ChangeHistory:
    """The recorded rounds by the age of their oldest change, for quick what-if sums."""

    def __init__(self, change_ages: Mapping[int, int]) -> None:
        self.ages = sorted(change_ages)
        self.rounds_below: list[int] = [0]   # rounds whose oldest change is younger than ages[i]
        for age in self.ages:
            self.rounds_below.append(self.rounds_below[-1] + change_ages[age])

    def rounds_younger_than(self, age: int) -> int:
        return self.rounds_below[bisect.bisect_left(self.ages, age)]

    def served(self, ages: list[int], tokens_by_age: Mapping[int, int]) -> int:
        """Tokens breakpoints after the items of ``ages`` or older would have served in all.

        A round whose oldest change had age ``c`` is served up to the youngest breakpoint
        age above ``c``: those items were all older than anything that changed.
        """
        total = counted = 0
        for age in sorted(ages):
            rounds = self.rounds_younger_than(age)
            total += (rounds - counted) * tokens_by_age[age]
            counted = rounds
        return total


def _quartile_ages(tokens_by_age: Mapping[int, int]) -> list[int]:
    """The ages whose cumulative tokens first reach each quarter of the total."""
    ages = sorted(tokens_by_age, reverse=True)
    total = tokens_by_age[ages[-1]]
    chosen: list[int] = []
    for quarter in range(1, MAX_BREAKPOINTS + 1):
        age = next(age for age in ages if tokens_by_age[age] * MAX_BREAKPOINTS >= quarter * total)
        if age not in chosen:
            chosen.append(age)
    return chosen
