"""The prompt plan: blocks in prompt order, a breakpoint after each non-empty cache tier."""

from __future__ import annotations

from ripple_workspace import Contents

from sari_ripple import RippleTracker, build_prompt_plan

SIZES = {"l0": 3000, "l1": 200, "l2a": 700, "l2b": 500, "l3": 2000, "act": 50}


def _tracker() -> RippleTracker:
    tracker, contents = RippleTracker(), Contents()
    for item, tier in [("l0", "L0"), ("l1", "L1"), ("l2a", "L2"), ("l2b", "L2"), ("l3", "L3")]:
        tracker.place(item, tier, contents(item))  # type: ignore[arg-type]
    tracker.update_after_response(["act"], contents)
    return tracker


def test_blocks_run_from_l0_to_active_with_cache_control_after_each_cache_tier() -> None:
    plan = build_prompt_plan(_tracker(), list(SIZES), SIZES.__getitem__)
    assert plan.to_json() == {
        "breakpoints": 4,
        "blocks": [
            {"tier": "L0", "tiers": ["L0"], "items": ["l0"], "tokens": 3000,
             "cache_control": {"type": "ephemeral"}},
            {"tier": "L1", "tiers": ["L1"], "items": ["l1"], "tokens": 200,
             "cache_control": {"type": "ephemeral"}},
            {"tier": "L2", "tiers": ["L2"], "items": ["l2a", "l2b"], "tokens": 1200,
             "cache_control": {"type": "ephemeral"}},
            {"tier": "L3", "tiers": ["L3"], "items": ["l3"], "tokens": 2000,
             "cache_control": {"type": "ephemeral"}},
            {"tier": "active", "tiers": ["active"], "items": ["act"], "tokens": 50},
        ],
    }


def test_empty_tiers_get_no_block_and_no_breakpoint() -> None:
    plan = build_prompt_plan(_tracker(), ["l0", "l3"], SIZES.__getitem__)
    assert [(block.tier, block.cached) for block in plan.blocks] == [("L0", True), ("L3", True)]


def test_token_aware_merges_a_small_tier_down_into_the_next_one() -> None:
    plan = build_prompt_plan(_tracker(), list(SIZES), SIZES.__getitem__, token_aware=True,
                             min_cache_tokens=1024)
    assert [(block.tiers, [e.item for e in block.items], block.cached)
            for block in plan.blocks] == [
        (["L0"], ["l0"], True),
        (["L1", "L2"], ["l1", "l2a", "l2b"], True),   # L1 (200 tokens) rides with L2
        (["L3"], ["l3"], True),
        (["active"], ["act"], False),
    ]
    assert plan.breakpoints == 3


def test_token_aware_small_tiers_accumulate_and_the_rest_falls_into_active() -> None:
    sizes = {**SIZES, "l0": 100, "l2a": 100, "l2b": 100, "l3": 100}
    plan = build_prompt_plan(_tracker(), list(sizes), sizes.__getitem__, token_aware=True)
    assert [(block.tiers, block.cached, block.tokens) for block in plan.blocks] == [
        (["L0", "L1", "L2", "L3", "active"], False, 650)]
    assert plan.breakpoints == 0


def test_content_blocks_are_messages_api_text_blocks() -> None:
    plan = build_prompt_plan(_tracker(), ["l0", "l3", "act"], SIZES.__getitem__)
    content = plan.content_blocks(lambda item: f"<{item}>")
    assert content == [
        {"type": "text", "text": "<l0>", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "<l3>", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "<act>"},
    ]
    assert plan.to_json(lambda item: f"<{item}>")["content"] == content
