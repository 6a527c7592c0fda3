"""Initial placement from reference counts (a fresh start).

Files are ranked by how many other files reference the symbols they define; the
top third starts in L1, the middle third in L2 and the rest in L3. L0 starts
empty: items earn it through stability. Files in Active stay Active.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sari_ripple.config import Tier, TierRule

_THIRDS: tuple[Tier, Tier, Tier] = ("L1", "L2", "L3")


def rank_by_references(reference_counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """``[(path, refs)]`` sorted by refs descending; equal counts by path, for determinism."""
    return sorted(reference_counts.items(), key=lambda pair: (-pair[1], pair[0]))


def compute_initial_tiers(files_with_refs: list[tuple[str, int]],
                          rules: Mapping[str, TierRule]) -> dict[str, tuple[Tier, int]]:
    """Ripple's ``compute_initial_tiers``: ``{path: (tier, n_value)}``.

    :param files_with_refs: ``[(path, ref_count)]`` sorted by ref count, descending.
    """
    total = len(files_with_refs)
    third = total // 3
    placement: dict[str, tuple[Tier, int]] = {}
    for index, (path, _refs) in enumerate(files_with_refs):
        tier = _THIRDS[0] if index < third else _THIRDS[1] if index < 2 * third else _THIRDS[2]
        placement[path] = (tier, rules[tier].entry_n)
    return placement


class InitialPlacer:
    """Where an item the tracker has never seen starts.

    Built once from the engine's reference counts (None when the engine has no
    symbol index): an item in the ranking gets its third's tier, any other item L3.
    """

    def __init__(self, reference_counts: Mapping[str, int] | None,
                 rules: Mapping[str, TierRule]) -> None:
        self.rules = rules
        ranking = rank_by_references(reference_counts or {})
        self.placement = compute_initial_tiers(ranking, rules)

    @property
    def has_references(self) -> bool:
        return bool(self.placement)

    def tier_for(self, item: str) -> tuple[Tier, int]:
        return self.placement.get(item, ("L3", self.rules["L3"].entry_n))

    def place_all(self, items: Iterable[str], active: Iterable[str]) -> dict[str, tuple[Tier, int]]:
        """Placement of ``items`` on a fresh start; items in ``active`` are left out."""
        skip = set(active)
        return {item: self.tier_for(item) for item in items if item not in skip}
