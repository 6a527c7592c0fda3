"""The reason code of the relevance guard."""

from __future__ import annotations

from sari_core import ReasonCodeSpec

LOW_RELEVANCE_OUTSIDE_TOPK = "LOW_RELEVANCE_OUTSIDE_TOPK"

# Ranks place these codes first in every response, ahead of the kernel's own codes.
REASON_CODES: tuple[ReasonCodeSpec, ...] = (
    ReasonCodeSpec(
        code=LOW_RELEVANCE_OUTSIDE_TOPK,
        description="The read target is outside the top results of the session's latest search, "
                    "or under an excluded path.",
        severity="warning",
        next_call_template={'tool': 'read', 'arguments': {'mode': 'file', 'target': '<alternative>'}},
        rank=5,
    ),
)
