"""Folding verdicts: any block wins, codes ordered by the registry, load order irrelevant."""

from __future__ import annotations

import itertools
import json

from plugins_for_tests import (
    BlockingPolicy,
    ClampingPolicy,
    ExtensionCodes,
    WarningPolicy,
    registry_with_policy_codes,
)

from sari_core import Kernel, ReasonCode, Verdict
from sari_core.kernel.reasons import ReasonRegistry
from sari_core.kernel.verdicts import PluginVerdict, fold_verdicts
from sari_core.models import NextCall
from sari_core.testing import MemoryEngine

FILES = {"a.py": "".join(f"line {i}\n" for i in range(1, 41)), "b.py": "x = 1\n"}


def _strip_ids(response: dict) -> str:
    response = json.loads(json.dumps(response))
    response["meta"].pop("execution_id", None)
    return json.dumps(response, sort_keys=False)


def _read_with(plugins: list[object]) -> str:
    kernel = Kernel(MemoryEngine(FILES), plugins=plugins, load_entry_points=False,
                    analytics_sinks=[])
    try:
        kernel.execute_search({"query": "line"}, connection_id="c1")
        return _strip_ids(kernel.execute_read({"mode": "file", "target": "a.py"},
                                              connection_id="c1"))
    finally:
        kernel.close()


def test_same_plugins_in_every_order_give_byte_identical_responses() -> None:
    def make() -> list[object]:
        return [WarningPolicy(), ClampingPolicy("test.clamp-a", 10), ClampingPolicy("test.clamp-b", 5),
                ExtensionCodes("test.ext-z", ("ZZ_LATE",)), ExtensionCodes("test.ext-a", ("AA_EARLY",))]

    outputs = set()
    for order in itertools.permutations(range(5)):
        plugins = make()
        outputs.add(_read_with([plugins[i] for i in order]))
    assert len(outputs) == 1
    response = json.loads(outputs.pop())
    stab = response["meta"]["stabilization"]
    # Codes by registered rank, then unranked extension codes by name, whatever the order.
    assert stab["reason_codes"] == ["BUDGET_SOFT_LIMIT", "LOW_RELEVANCE_OUTSIDE_TOPK",
                                    "AA_EARLY", "ZZ_LATE"]
    # two clamps fold to the smallest limit
    assert response["meta"]["end_line"] == 5
    assert response["text"] == "".join(f"line {i}\n" for i in range(1, 6))
    assert stab["budget_state"] == "soft_limit"


def test_any_block_wins_and_the_engine_is_not_called() -> None:
    engine = MemoryEngine(FILES)
    calls = []
    original = engine.read
    engine.read = lambda call: calls.append(call) or original(call)  # type: ignore[method-assign]
    for plugins in ([WarningPolicy(), BlockingPolicy()], [BlockingPolicy(), WarningPolicy()]):
        kernel = Kernel(engine, plugins=plugins, load_entry_points=False, analytics_sinks=[])
        response = kernel.execute_read({"mode": "file", "target": "a.py"})
        kernel.close()
        assert response["ok"] is False
        assert response["error"] == {"code": "SEARCH_FIRST_REQUIRED", "message": "search first",
                                     "hint": "call search"}
        stab = response["meta"]["stabilization"]
        assert stab["reason_codes"] == ["SEARCH_FIRST_REQUIRED", "LOW_RELEVANCE_OUTSIDE_TOPK"]
        assert stab["next_calls"] == [{"tool": "search", "arguments": {"query": "a.py"}}]
        assert "text" not in response
    assert calls == []


def test_fold_is_a_pure_function_of_the_verdict_set() -> None:
    registry = registry_with_policy_codes()
    items = [
        PluginVerdict("p1", Verdict.warn("PREVIEW_DEGRADED", message="trimmed")),
        PluginVerdict("p2", Verdict.block("BUDGET_HARD_LIMIT", message="over budget",
                                          error_code="BUDGET_EXCEEDED",
                                          next_calls=(NextCall(tool="search",
                                                               arguments={"query": "q"}),))),
        PluginVerdict("p3", Verdict.block("SEARCH_FIRST_REQUIRED", message="search first")),
        PluginVerdict("p4", Verdict.narrow("BUDGET_SOFT_LIMIT", to={"limit": 7})),
        PluginVerdict("p5", Verdict.narrow("BUDGET_SOFT_LIMIT", to={"limit": 3})),
    ]
    results = {repr(fold_verdicts(list(perm), registry)) for perm in itertools.permutations(items)}
    assert len(results) == 1
    folded = fold_verdicts(items, registry)
    assert folded.blocked
    # the block with the earliest reason code in the registry provides the error
    assert folded.error_code == "SEARCH_FIRST_REQUIRED" and folded.blocked_by == "p3"
    assert folded.reason_codes == ["SEARCH_FIRST_REQUIRED", "BUDGET_SOFT_LIMIT",
                                   "BUDGET_HARD_LIMIT", "PREVIEW_DEGRADED"]
    assert folded.narrow_to == {"limit": 3}


def test_duplicate_codes_and_next_calls_are_collapsed() -> None:
    registry = ReasonRegistry.with_kernel_codes()
    call = NextCall(tool="search", arguments={"query": "q"})
    items = [PluginVerdict(f"p{i}", Verdict.warn(ReasonCode.PREVIEW_DEGRADED.value, message="m",
                                                 next_calls=(call,))) for i in range(3)]
    folded = fold_verdicts(items, registry)
    assert folded.reason_codes == ["PREVIEW_DEGRADED"]
    assert folded.next_calls == [call]
    assert folded.warnings == ["m"]
