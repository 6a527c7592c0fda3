"""The reason codes of the read budget."""

from __future__ import annotations

from sari_core import ReasonCodeSpec

BUDGET_SOFT_LIMIT = "BUDGET_SOFT_LIMIT"
BUDGET_HARD_LIMIT = "BUDGET_HARD_LIMIT"

# Ranks place these codes first in every response, ahead of the kernel's own codes.
REASON_CODES: tuple[ReasonCodeSpec, ...] = (
    ReasonCodeSpec(
        code=BUDGET_SOFT_LIMIT,
        description="The session has used 80% or more of a read budget; prefer search to narrow "
                    "the scope.",
        severity="warning",
        next_call_template={'tool': 'search', 'arguments': {'query': '<narrower query>'}},
        rank=3,
    ),
    ReasonCodeSpec(
        code=BUDGET_HARD_LIMIT,
        description="The session's read budget is spent; the read was refused.",
        severity="error",
        next_call_template={'tool': 'search', 'arguments': {'query': '<narrower query>'}},
        rank=4,
    ),
)
