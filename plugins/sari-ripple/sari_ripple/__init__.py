"""sari-ripple: ripple-promotion prompt-cache tiers for Sari (seed 004).

Library use, without the kernel::

    from sari_ripple import RippleTracker, build_prompt_plan

    tracker = RippleTracker()
    tracker.update_after_response(["a.py"], read_file, modified=set())
    plan = build_prompt_plan(tracker, context_items, tokens_of)
    system = plan.content_blocks(render)   # Messages API blocks with cache_control
"""

from __future__ import annotations

from sari_ripple.config import ACTIVE, CACHE_TIERS, PROMPT_ORDER, TIER_CONFIG, RippleSettings
from sari_ripple.initial import compute_initial_tiers, rank_by_references
from sari_ripple.plan import PromptPlan, build_prompt_plan, plan_from_layout, tier_layout
from sari_ripple.tracker import RippleTracker, StabilityInfo

__all__ = [
    "ACTIVE",
    "CACHE_TIERS",
    "PROMPT_ORDER",
    "TIER_CONFIG",
    "PromptPlan",
    "RippleSettings",
    "RippleTracker",
    "StabilityInfo",
    "build_prompt_plan",
    "compute_initial_tiers",
    "plan_from_layout",
    "rank_by_references",
    "tier_layout",
]
