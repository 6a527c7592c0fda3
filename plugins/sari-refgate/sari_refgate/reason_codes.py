"""The reason codes the reference gate refuses reads with."""

from __future__ import annotations

from sari_core import ReasonCodeSpec

SEARCH_FIRST_REQUIRED = "SEARCH_FIRST_REQUIRED"
SEARCH_REF_REQUIRED = "SEARCH_REF_REQUIRED"
CANDIDATE_REF_REQUIRED = "CANDIDATE_REF_REQUIRED"

# Ranks place these codes first in every response, ahead of the kernel's own codes.
REASON_CODES: tuple[ReasonCodeSpec, ...] = (
    ReasonCodeSpec(
        code=SEARCH_FIRST_REQUIRED,
        description="A read was refused because the session has not searched yet; reads must "
                    "follow a search.",
        severity="error",
        next_call_template={'tool': 'search', 'arguments': {'query': '<what you are looking for>'}},
        rank=0,
    ),
    ReasonCodeSpec(
        code=SEARCH_REF_REQUIRED,
        description="A read was refused because it carried no valid search reference (bundle_id "
                    "or candidate_id) of this session.",
        severity="error",
        next_call_template={'tool': 'read', 'arguments': {'mode': 'file', 'target': '<path>', 'candidate_id': '<from search>'}},
        rank=1,
    ),
    ReasonCodeSpec(
        code=CANDIDATE_REF_REQUIRED,
        description="A read was refused because its candidate_id is unknown, belongs to another "
                    "session, or points at another target.",
        severity="error",
        next_call_template={'tool': 'read', 'arguments': {'mode': 'file', 'target': '<path>', 'candidate_id': '<from search>'}},
        rank=2,
    ),
)
