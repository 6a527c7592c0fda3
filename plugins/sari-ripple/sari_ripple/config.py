"""Tier names, ripple's ``TIER_CONFIG``, the fixed thresholds and the plugin's settings model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from sari_core import OperatorOnly, Tightens

Tier = Literal["active", "L3", "L2", "L1", "L0"]
# Why an item entered a tier: the values of ``TierEntry.reason``.
EntryReason = Literal["inactive", "promotion", "modified", "reactivated", "initial"]
# The tier policies a session can run (``RippleSettings.policy``); see sari_ripple.policies.
PolicyName = Literal["adaptive", "gated", "ripple", "fixed"]
DEFAULT_POLICY: PolicyName = "adaptive"
ACTIVE: Tier = "active"
# Ripple order: an item leaving Active enters L3 and is promoted towards L0.
CACHE_TIERS: tuple[Tier, ...] = ("L3", "L2", "L1", "L0")
# Prompt order: the most stable tier first, so that it is the longest shared prefix.
PROMPT_ORDER: tuple[Tier, ...] = ("L0", "L1", "L2", "L3", "active")

TIER_CONFIG: dict[str, dict[str, int | None]] = {
    "L3": {"entry_n": 3, "promotion_threshold": 6},
    "L2": {"entry_n": 6, "promotion_threshold": 9},
    "L1": {"entry_n": 9, "promotion_threshold": 12},
    "L0": {"entry_n": 12, "promotion_threshold": None},  # terminal tier
}

# The fixed tracker: an item sits in L2, L1, L0 once unchanged for this many rounds
# (L3 from one round on). The fixed policy tiers by these; the gated policy uses them as the
# minimum age for a ripple promotion into each tier.
FIXED_THRESHOLDS: dict[str, int] = {"L2": 5, "L1": 10, "L0": 20}


@dataclass(frozen=True)
class TierRule:
    """How a cache tier behaves: the N an item gets on entry, and when it leaves upwards."""

    entry_n: int
    promotion_threshold: int | None


def tier_rules(config: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, TierRule]:
    """Validated rules for L3..L0 from a ``TIER_CONFIG``-shaped mapping."""
    config = TIER_CONFIG if config is None else config
    missing = [tier for tier in CACHE_TIERS if tier not in config]
    unknown = sorted(set(config) - set(CACHE_TIERS))
    if missing or unknown:
        raise ValueError(f"tier_config needs exactly the tiers L3, L2, L1, L0 "
                         f"(missing: {missing or 'none'}, unknown: {unknown or 'none'})")
    rules: dict[str, TierRule] = {}
    for tier in CACHE_TIERS:
        entry = config[tier]
        entry_n = entry.get("entry_n")
        threshold = entry.get("promotion_threshold")
        if not isinstance(entry_n, int) or entry_n < 1:
            raise ValueError(f"tier_config.{tier}.entry_n must be an integer >= 1")
        if tier == "L0":
            if threshold is not None:
                raise ValueError("tier_config.L0.promotion_threshold must be null: L0 is terminal")
        elif not isinstance(threshold, int) or threshold <= entry_n:
            raise ValueError(f"tier_config.{tier}.promotion_threshold must be an integer "
                             f"greater than its entry_n ({entry_n})")
        rules[tier] = TierRule(entry_n=entry_n, promotion_threshold=threshold)
    return rules


def fixed_rules(thresholds: Mapping[str, Any] | None = None) -> dict[str, TierRule]:
    """The fixed policy's rules in ``TierRule`` form, from ``{"L2": 5, "L1": 10, "L0": 20}``.

    N is the number of rounds an item has been unchanged: an item enters a tier when N
    reaches the tier's threshold (``entry_n``; L3 from 1) and leaves it upwards at the next
    tier's (``promotion_threshold``).

    :raises ValueError: unless exactly L2, L1 and L0 are given as integers rising from above 1.
    """
    thresholds = FIXED_THRESHOLDS if thresholds is None else thresholds
    upper = CACHE_TIERS[1:]
    missing = [tier for tier in upper if tier not in thresholds]
    unknown = sorted(set(thresholds) - set(upper))
    if missing or unknown:
        raise ValueError(f"fixed_thresholds needs exactly the tiers L2, L1, L0 "
                         f"(missing: {missing or 'none'}, unknown: {unknown or 'none'})")
    entries = [1]
    for tier in upper:
        value = thresholds[tier]
        if not isinstance(value, int) or isinstance(value, bool) or value <= entries[-1]:
            raise ValueError(f"fixed_thresholds.{tier} must be an integer greater than "
                             f"{entries[-1]} (the threshold of the tier below)")
        entries.append(value)
    return {tier: TierRule(entry_n=entries[index],
                           promotion_threshold=entries[index + 1] if index + 1 < len(entries)
                           else None)
            for index, tier in enumerate(CACHE_TIERS)}


class RippleSettings(BaseModel):
    """``[tool.sari.ripple]``: prompt-cache tiers by ripple promotion or alternatives."""

    policy: Annotated[PolicyName, Tightens("either", "only lays out the prompt cache")] = Field(
        DEFAULT_POLICY,
        description="How the context is laid out for the prompt cache: 'adaptive' (oldest "
                    "changed first, one block per item, breakpoints at the ages that served "
                    "the most in this session's past rounds), 'gated' (ripple promotion that "
                    "also needs the item unchanged for fixed_thresholds rounds), 'ripple' "
                    "(ripple promotion as first specified) or 'fixed' (tier by unchanged rounds "
                    "alone).",
    )
    tier_config: Annotated[dict[str, dict[str, int | None]], Tightens(
        "either", "only lays out the prompt cache")] = Field(
        default_factory=lambda: {tier: dict(rule) for tier, rule in TIER_CONFIG.items()},
        description="Ripple's TIER_CONFIG: per cache tier the N an item gets on entry and "
                    "the N at which it is promoted to the next tier (L0 is terminal). Used by "
                    "the ripple and gated policies.",
    )
    fixed_thresholds: Annotated[dict[str, int], Tightens(
        "either", "only lays out the prompt cache")] = Field(
        default_factory=lambda: dict(FIXED_THRESHOLDS),
        description="Unchanged rounds after which an item sits in L2, L1 and L0 under the fixed "
                    "policy, and the age the gated policy requires for a promotion into each.",
    )
    token_aware: Annotated[bool, Tightens("either", "only lays out the prompt cache")] = Field(
        False,
        description="Merge a tier whose items total fewer than min_cache_tokens into the next "
                    "less stable tier instead of spending a cache breakpoint on it.",
    )
    min_cache_tokens: Annotated[int, Tightens("either", "only lays out the prompt cache")] = Field(
        1024, ge=0,
        description="The provider's minimum cacheable size in tokens (1024 for most Anthropic "
                    "models), used by token_aware.",
    )
    initial_from_references: Annotated[bool, Tightens(
        "either", "only lays out the prompt cache")] = Field(
        True,
        description="Place items first seen outside Active by the engine's reference counts "
                    "(top third L1, middle third L2, rest L3) instead of all in L3.",
    )
    persist: Annotated[bool, OperatorOnly(
        "writes each session's tier state to Sari's state folder")] = Field(
        True,
        description="Keep each session's tier state in a file in Sari's state folder so it "
                    "survives restarts.",
    )

    @field_validator("tier_config")
    @classmethod
    def _valid_tiers(cls, value: dict[str, dict[str, int | None]]) -> dict[str, dict[str, int | None]]:
        tier_rules(value)
        return value

    @field_validator("fixed_thresholds")
    @classmethod
    def _valid_thresholds(cls, value: dict[str, int]) -> dict[str, int]:
        fixed_rules(value)
        return value

    def rules(self) -> dict[str, TierRule]:
        """Ripple's tier rules (ripple promotion), from ``tier_config``."""
        return tier_rules(self.tier_config)

    def fixed_rules(self) -> dict[str, TierRule]:
        """The fixed policy's rules, from ``fixed_thresholds``."""
        return fixed_rules(self.fixed_thresholds)
