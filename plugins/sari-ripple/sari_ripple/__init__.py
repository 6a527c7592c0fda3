"""sari-ripple: prompt-cache tiers for Sari by ripple promotion and alternatives.

Library use, without the kernel::

    from sari_ripple import build_prompt_plan, new_tracker

    tracker = new_tracker()   # the default policy; or RippleTracker(), FixedThresholdTracker()
    tracker.update_after_response(["a.py"], read_file, modified=set())
    plan = build_prompt_plan(tracker, context_items, tokens_of)
    system = plan.content_blocks(render)   # Messages API blocks with cache_control
"""

from __future__ import annotations

from sari_ripple.adaptive import AdaptiveTracker
from sari_ripple.config import (
    ACTIVE,
    CACHE_TIERS,
    DEFAULT_POLICY,
    FIXED_THRESHOLDS,
    PROMPT_ORDER,
    TIER_CONFIG,
    RippleSettings,
    fixed_rules,
    tier_rules,
)
from sari_ripple.fixed import FixedThresholdTracker
from sari_ripple.gated import GatedRippleTracker
from sari_ripple.initial import compute_initial_tiers, rank_by_references
from sari_ripple.plan import (
    PromptPlan,
    build_prompt_plan,
    plan_from_layout,
    round_plan,
    tier_layout,
)
from sari_ripple.policies import POLICIES, new_tracker, restore_tracker
from sari_ripple.tracker import RippleTracker
from sari_ripple.tracking import StabilityInfo, TierTracker

__all__ = [
    "ACTIVE",
    "AdaptiveTracker",
    "CACHE_TIERS",
    "DEFAULT_POLICY",
    "FIXED_THRESHOLDS",
    "POLICIES",
    "PROMPT_ORDER",
    "TIER_CONFIG",
    "FixedThresholdTracker",
    "GatedRippleTracker",
    "PromptPlan",
    "RippleSettings",
    "RippleTracker",
    "StabilityInfo",
    "TierTracker",
    "build_prompt_plan",
    "compute_initial_tiers",
    "fixed_rules",
    "new_tracker",
    "plan_from_layout",
    "rank_by_references",
    "restore_tracker",
    "round_plan",
    "tier_layout",
    "tier_rules",
]
