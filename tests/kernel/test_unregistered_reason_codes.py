"""A reason code nobody registered is its plugin's error, never the model's to read; and the
rank rule is stated once, on the reason-code page, as the code applies it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from sari_core import Plugin, ReadCall, ReasonCodeSpec, Verdict, hookimpl
from sari_core.kernel.reasons import EXTENSION_DEFAULT_RANK, KERNEL_RANKS
from sari_core.testing import Kernels, MemoryEngine

FILES = {"vendor/big.py": "x = 1\n" * 50}
READ = {"mode": "file", "target": "vendor/big.py"}
PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "reason-codes.md"


class VendorCap(Plugin):
    name = "vendor_cap"

    def __init__(self, *, register: bool, fail_closed: bool = False) -> None:
        self.register = register
        self.fail_closed = fail_closed

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("NOVENDOR_READ", "Reads under vendor/ are refused.")] \
            if self.register else []

    @hookimpl
    def on_read_enter(self, call: ReadCall) -> Verdict | None:
        if call.target.startswith("vendor/"):
            return Verdict.block("NOVENDOR_READ", message="vendor/ is not read here.")
        return None


def test_a_registered_code_reaches_the_response(sari_kernels: Kernels) -> None:
    kernel = sari_kernels.build(MemoryEngine(FILES), [VendorCap(register=True)])
    response = kernel.execute_read(READ)
    assert response["ok"] is False and response["error"]["code"] == "NOVENDOR_READ"


def test_an_unregistered_code_is_the_plugins_error_and_never_reaches_the_model(
        sari_kernels: Kernels, caplog: pytest.LogCaptureFixture) -> None:
    kernel = sari_kernels.build(MemoryEngine(FILES), [VendorCap(register=False)])
    with caplog.at_level(logging.ERROR):
        response = kernel.execute_read(READ)
    # Fail-open (the plugin's declaration): served, with PLUGIN_ERROR instead of the code.
    assert response["ok"] is True
    stabilization = response["meta"]["stabilization"]
    assert stabilization["reason_codes"] == ["PLUGIN_ERROR"]
    assert "NOVENDOR_READ" not in str({k: v for k, v in response.items() if k != "meta"})
    assert any("vendor_cap" in w and "NOVENDOR_READ" in w for w in stabilization["warnings"])
    assert any("NOVENDOR_READ" in r.getMessage() and "vendor_cap" in r.getMessage()
               for r in caplog.records)


def test_an_unregistered_code_of_a_fail_closed_plugin_refuses_the_call(
        sari_kernels: Kernels) -> None:
    kernel = sari_kernels.build(MemoryEngine(FILES),
                                [VendorCap(register=False, fail_closed=True)])
    response = kernel.execute_read(READ)
    assert response["ok"] is False
    assert response["error"]["code"] == "PLUGIN_ERROR"
    assert response["meta"]["stabilization"]["reason_codes"] == ["PLUGIN_ERROR"]


def test_the_rank_rule_on_the_page_is_the_one_the_code_applies() -> None:
    text = PAGE.read_text(encoding="utf-8")
    rule = text[text.index("**The rank rule**"):]
    rule = rule[:rule.index("\n\n")]
    low, high = map(int, re.search(r"ranks (\d+) to (\d+)", rule).groups())  # type: ignore[union-attr]
    assert (low, high) == (min(KERNEL_RANKS.values()), max(KERNEL_RANKS.values()))
    assert sorted(KERNEL_RANKS.values()) == list(range(low, high + 1))
    assert f"gets {EXTENSION_DEFAULT_RANK}" in rule
    assert ReasonCodeSpec("X", "x").rank == EXTENSION_DEFAULT_RANK
