"""The tier layout of a context and the prompt plan built from it.

The plan orders blocks from the most stable tier to Active — L0, L1, L2, L3,
Active — and puts a cache breakpoint (Anthropic Messages API
``"cache_control": {"type": "ephemeral"}``) after each non-empty cache tier:
at most four, the provider's limit. A change in a tier then invalidates the cache
from that tier on, while every more stable tier before it is still served from cache.

With ``token_aware`` a tier whose items total fewer than ``min_cache_tokens`` does
not get a breakpoint of its own: its items ride in the next less stable block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sari_ripple.config import ACTIVE, PROMPT_ORDER, Tier
from sari_ripple.tracking import TierTracker

CACHE_CONTROL: dict[str, str] = {"type": "ephemeral"}
TokenCounter = Callable[[str], int]
Renderer = Callable[[str], str]


@dataclass(frozen=True)
class LayoutItem:
    item: str
    n_value: int
    tokens: int

    def to_json(self) -> dict[str, Any]:
        return {"item": self.item, "n": self.n_value, "tokens": self.tokens}


@dataclass
class PlanBlock:
    """One prompt block: the items of one tier (or of several merged tiers).

    :ivar tier: the tier the block stands for (the least stable of ``tiers``).
    :ivar tiers: every tier whose items are in the block.
    :ivar cached: whether a cache breakpoint follows the block.
    """

    tier: Tier
    tiers: list[Tier]
    items: list[LayoutItem]
    cached: bool

    @property
    def tokens(self) -> int:
        return sum(entry.tokens for entry in self.items)

    def to_json(self) -> dict[str, Any]:
        block: dict[str, Any] = {"tier": self.tier, "tiers": list(self.tiers),
                                 "items": [entry.item for entry in self.items],
                                 "tokens": self.tokens}
        if self.cached:
            block["cache_control"] = dict(CACHE_CONTROL)
        return block


@dataclass
class PromptPlan:
    blocks: list[PlanBlock] = field(default_factory=list)

    @property
    def breakpoints(self) -> int:
        return sum(1 for block in self.blocks if block.cached)

    def content_blocks(self, render: Renderer) -> list[dict[str, Any]]:
        """The plan as Messages API text blocks (for ``system`` or a user turn), rendered.

        :param render: the text of one item (e.g. a file wrapped in a header).
        """
        content = []
        for block in self.blocks:
            part: dict[str, Any] = {"type": "text",
                                    "text": "".join(render(entry.item) for entry in block.items)}
            if block.cached:
                part["cache_control"] = dict(CACHE_CONTROL)
            content.append(part)
        return content

    def to_json(self, render: Renderer | None = None) -> dict[str, Any]:
        plan: dict[str, Any] = {"breakpoints": self.breakpoints,
                                "blocks": [block.to_json() for block in self.blocks]}
        if render is not None:
            plan["content"] = self.content_blocks(render)
        return plan


def tier_layout(tracker: TierTracker, items: Iterable[str],
                tokens_of: TokenCounter) -> dict[Tier, list[LayoutItem]]:
    """The given items by tier, in prompt order, each with its N and token estimate."""
    grouped = tracker.get_items_by_tier(items)
    return {tier: [LayoutItem(item, tracker.get_n_value(item), tokens_of(item))
                   for item in grouped[tier]] for tier in PROMPT_ORDER}


def plan_from_layout(layout: dict[Tier, list[LayoutItem]], *, token_aware: bool = False,
                     min_cache_tokens: int = 1024) -> PromptPlan:
    """Blocks in prompt order with a breakpoint after each non-empty cache tier."""
    plan = PromptPlan()
    carried_tiers: list[Tier] = []
    carried: list[LayoutItem] = []
    for tier in PROMPT_ORDER:
        entries = layout.get(tier, [])
        if not entries:
            continue
        tiers: list[Tier] = [*carried_tiers, tier]
        items = [*carried, *entries]
        if tier == ACTIVE:
            plan.blocks.append(PlanBlock(tier, tiers, items, cached=False))
            carried_tiers, carried = [], []
            continue
        if token_aware and sum(entry.tokens for entry in items) < min_cache_tokens:
            carried_tiers, carried = tiers, items
            continue
        plan.blocks.append(PlanBlock(tier, tiers, items, cached=True))
        carried_tiers, carried = [], []
    if carried:
        plan.blocks.append(PlanBlock(ACTIVE, [*carried_tiers, ACTIVE], carried, cached=False))
    return plan


@runtime_checkable
class PlansItsOwnPrompt(Protocol):
    """A tracker that lays out its own prompt instead of one block per tier."""

    def own_plan(self, items: Iterable[str], tokens_of: TokenCounter
                 ) -> tuple[dict[Tier, list[LayoutItem]], PromptPlan]: ...


def round_plan(tracker: TierTracker, items: Iterable[str], tokens_of: TokenCounter, *,
               token_aware: bool = False, min_cache_tokens: int = 1024
               ) -> tuple[dict[Tier, list[LayoutItem]], PromptPlan]:
    """The layout and the prompt plan of a round, as the tracker's policy lays them out.

    A tier policy gets one block per tier (:func:`plan_from_layout`); a policy that plans
    its own prompt (``adaptive``) is asked for it, and ``token_aware`` does not apply.
    """
    if isinstance(tracker, PlansItsOwnPrompt):
        return tracker.own_plan(items, tokens_of)
    layout = tier_layout(tracker, items, tokens_of)
    return layout, plan_from_layout(layout, token_aware=token_aware,
                                    min_cache_tokens=min_cache_tokens)


def build_prompt_plan(tracker: TierTracker, items: Iterable[str], tokens_of: TokenCounter, *,
                      token_aware: bool = False, min_cache_tokens: int = 1024) -> PromptPlan:
    """The library entry point: the prompt plan for ``items`` as the tracker tiers them.

    The ``context_tiers`` tool returns the same plan; an agent loop that imports Sari
    calls this directly and renders it with :meth:`PromptPlan.content_blocks`.
    """
    return round_plan(tracker, items, tokens_of, token_aware=token_aware,
                      min_cache_tokens=min_cache_tokens)[1]
