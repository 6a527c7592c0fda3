"""Reason codes are stable: the kernel's enum is pinned, plugins add theirs, nobody redefines."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from sari_core.kernel.reasons import KERNEL_RANKS, ReasonCode, ReasonCodeSpec, ReasonRegistry

PINNED = [
    "PREVIEW_DEGRADED",
    "PLUGIN_ERROR",
    "SESSION_ID_REQUIRED",
    "INDEX_BUILDING",
    "EXTERNAL_CHANGE",
]


def test_enum_names_and_order_are_pinned() -> None:
    assert [code.name for code in ReasonCode] == PINNED
    assert [code.value for code in ReasonCode] == PINNED
    assert [KERNEL_RANKS[code] for code in ReasonCode] == [6, 7, 8, 9, 10]


def test_registry_json_describes_exactly_the_enum() -> None:
    text = resources.files("sari_core.kernel").joinpath("reason_registry.json").read_text("utf-8")
    entries = json.loads(text)["codes"]
    assert [e["code"] for e in entries] == PINNED
    for entry in entries:
        assert entry["description"] and entry["severity"] in {"info", "warning", "error"}
        assert set(entry) <= {"code", "description", "severity", "next_call_template"}


def test_registry_orders_kernel_codes_by_enum_whatever_the_input_order() -> None:
    registry = ReasonRegistry.with_kernel_codes()
    assert registry.codes() == PINNED
    assert registry.order(reversed(PINNED)) == PINNED
    assert registry.order(["EXTERNAL_CHANGE", "PREVIEW_DEGRADED", "PREVIEW_DEGRADED"]) == [
        "PREVIEW_DEGRADED", "EXTERNAL_CHANGE"]


def test_extensions_sort_after_kernel_codes_independent_of_registration_order() -> None:
    first, second = ReasonRegistry.with_kernel_codes(), ReasonRegistry.with_kernel_codes()
    specs = [ReasonCodeSpec("ZED_CODE", "z"), ReasonCodeSpec("ALPHA_CODE", "a"),
             ReasonCodeSpec("RANKED_CODE", "r", rank=50)]
    for spec in specs:
        first.register(spec, owner="p")
    for spec in reversed(specs):
        second.register(spec, owner="p")
    assert first.codes() == second.codes() == [*PINNED, "RANKED_CODE", "ALPHA_CODE", "ZED_CODE"]


def test_a_plugin_cannot_redefine_or_outrank_a_kernel_code() -> None:
    registry = ReasonRegistry.with_kernel_codes()
    with pytest.raises(ValueError, match="conflicts"):
        registry.register(ReasonCodeSpec("PLUGIN_ERROR", "mine now", severity="info"),
                          owner="evil")
    with pytest.raises(ValueError, match="reserved"):
        registry.register(ReasonCodeSpec("SAME_RANK_PLEASE", "x", rank=7), owner="pushy")
