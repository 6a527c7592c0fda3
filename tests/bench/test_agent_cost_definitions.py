"""``bench/agent_cost.py --in-place-of``: Sari's tools standing in for the client's own file
tools (which the client is then told not to list) cost the conversation their own tokens less
the replaced ones; by default they are added on top, which is what the targets assume."""

from __future__ import annotations

import pytest
from bench_modules import load_bench

agent_cost = load_bench("agent_cost")
# The policies arm's definitions are those of a server running the four default policies.
for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
    pytest.importorskip(policy, reason="the bench's policies arm runs the four default policies")


def test_tools_in_place_of_the_clients_own_cost_their_tokens_less_the_replaced_ones() -> None:
    added = agent_cost.tool_definitions()
    assert added["whole-file"] == added["careful"] == 0 and added["in_place_of"] == 0
    assert 0 < added["core"] <= added["policies"] <= added["every_plugin"]
    replacing = agent_cost.tool_definitions(1414)
    assert replacing["core"] == added["core"] - 1414
    assert replacing["policies"] == added["policies"] - 1414
    assert replacing["whole-file"] == 0 and replacing["every_client"] == added["every_client"]
    assert replacing["every_plugin"] == added["every_plugin"]
    assert replacing["listed_every_plugin"] == added["listed_every_plugin"]
