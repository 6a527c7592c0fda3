"""The turn-aware cost model: a turn reads the whole conversation so far."""

from sari_core.costmodel import CostModel, session_cost, tokens, total

SMALL = CostModel(base_tokens=100, output_tokens_per_call=10, output_price=1.0)


def test_tokens_are_chars_over_four_rounded_up():
    assert [tokens(""), tokens("abc"), tokens("abcd"), tokens("abcde")] == [0, 1, 1, 2]


def test_each_call_is_a_turn_that_rereads_the_conversation():
    cost = session_cost([50, 30], tool_definition_tokens=20, model=SMALL)
    # prompts read: 120, 120+60=180, 180+40=220; outputs: 3 turns x 10
    assert (cost.turns, cost.input_tokens, cost.output_tokens) == (3, 520, 30)
    assert cost.uncached == 550
    # first turn writes 120; then reads 120 and writes 60; reads 180 and writes 40
    assert cost.cached == 120 * 1.25 + 120 * 0.1 + 60 * 1.25 + 180 * 0.1 + 40 * 1.25 + 30


def test_an_extra_turn_costs_more_than_the_tokens_it_saves():
    one_big_read = session_cost([2_000])
    refused_then_small = session_cost([40, 1_000])
    assert refused_then_small.uncached > one_big_read.uncached
    assert refused_then_small.result_tokens < one_big_read.result_tokens


def test_total_adds_sessions():
    a, b = session_cost([1]), session_cost([2, 3])
    both = total([a, b])
    assert (both.calls, both.turns) == (3, 5)
    assert both.cached == a.cached + b.cached
