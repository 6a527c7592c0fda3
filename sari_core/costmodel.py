"""What an agent session costs, turn by turn.

Every tool call is one model turn that reads the whole conversation so far, so a
call that saves 500 tokens of output but adds a turn has usually cost more than it
saved. The model here is the yardstick both ``bench/agent_cost.py`` and
``sari replay`` use:

* the conversation starts at ``base_tokens`` (system prompt, user task) plus the
  tool definitions the client lists;
* each call is a turn: the model reads the conversation so far (input) and writes
  ``output_tokens_per_call`` tokens (the call), then the call's result is appended;
* after the last call one more turn reads the last result and answers;
* without prompt caching every input token costs 1x; with it, the prefix the
  previous turn already sent is read at ``cache_read`` and the tokens new since
  then are written at ``cache_write``;
* output tokens cost ``output_price`` input-token units (5x: the ratio of output
  to input price of current Claude models), the same in both cases.

Costs are in input-token units, so two arms compare as a plain ratio.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

CHARS_PER_TOKEN = 4


def tokens(text: str) -> int:
    """Estimate a text's tokens as characters / 4, rounded up (0 for empty text)."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class CostModel:
    """The parameters of the turn-aware model (defaults are the published yardstick)."""

    base_tokens: int = 20_000
    output_tokens_per_call: int = 150
    cache_read: float = 0.1
    cache_write: float = 1.25
    output_price: float = 5.0


@dataclass(frozen=True)
class SessionCost:
    """One session's figures under a :class:`CostModel`.

    :ivar calls: tool calls made.
    :ivar turns: model turns (calls + the closing turn).
    :ivar result_tokens: tokens of every tool result together.
    :ivar input_tokens: input tokens read over all turns (uncached).
    :ivar output_tokens: output tokens written over all turns.
    :ivar uncached: cost without prompt caching.
    :ivar cached: cost with prompt caching.
    """

    calls: int
    turns: int
    result_tokens: int
    input_tokens: int
    output_tokens: int
    uncached: float
    cached: float

    def __add__(self, other: SessionCost) -> SessionCost:
        return SessionCost(
            calls=self.calls + other.calls,
            turns=self.turns + other.turns,
            result_tokens=self.result_tokens + other.result_tokens,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            uncached=self.uncached + other.uncached,
            cached=self.cached + other.cached,
        )


def session_cost(
    result_tokens: Sequence[int],
    tool_definition_tokens: int = 0,
    model: CostModel = CostModel(),  # noqa: B008 - frozen dataclass, shared safely
) -> SessionCost:
    """Cost one session from the tokens of each tool result, in call order.

    :param result_tokens: tokens of each call's result as the model is shown it.
    :param tool_definition_tokens: tokens of the tool definitions listed to the model.
    :param model: the cost parameters.
    :return: the session's :class:`SessionCost`.
    """
    prefix = model.base_tokens + tool_definition_tokens
    out = model.output_tokens_per_call
    input_tokens = prefix
    cached = prefix * model.cache_write  # the first turn writes its whole prompt
    for result in result_tokens:
        added = out + result  # the call the model wrote and its result
        cached += prefix * model.cache_read + added * model.cache_write
        prefix += added
        input_tokens += prefix
    calls = len(result_tokens)
    output_tokens = out * (calls + 1)  # every call, and the closing answer
    output_cost = output_tokens * model.output_price
    return SessionCost(
        calls=calls,
        turns=calls + 1,
        result_tokens=sum(result_tokens),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        uncached=input_tokens + output_cost,
        cached=cached + output_cost,
    )


def total(costs: Iterable[SessionCost]) -> SessionCost:
    """Add session costs together (an empty iterable gives all zeros)."""
    result = SessionCost(0, 0, 0, 0, 0, 0.0, 0.0)
    for cost in costs:
        result = result + cost
    return result
