"""Reason codes, messages and next_calls do not depend on the order plugins are registered in.

Runs the stabilization policies that are installed (refgate and relevance at least,
budget and aggregation when present) in every rotation of their registration order
and its reverse, over one scripted session, and compares the responses byte for byte.
"""

from __future__ import annotations

from typing import Any

import pytest
from refgate_workspace import FILES
from registration_orders import installed_policies, responses_by_order

from sari_core import Kernel
from sari_core.testing import as_received

pytest.importorskip("sari_relevance")

SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("read", {"mode": "file", "target": "app/config.py"}),  # before any search
    ("search", {"query": "load_config"}),
    ("read", {"mode": "file", "target": "app/server.py"}),  # no ref, outside top-K
    ("read", {"mode": "snippet", "target": "app/server.py", "start_line": 1,
              "end_line": 2}),  # precision read, outside top-K (warned already)
    ("read", {"mode": "snippet", "target": "app/big.py", "start_line": 1,
              "end_line": 201}),  # too wide
    ("read", {"mode": "file", "target": "vendor/x.py", "limit": 5}),  # excluded
    ("ref", {}),  # the first next_call of the search, as given
    ("ref", {}),  # and again: a re-read
]


def _run(kernel: Kernel) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    search: dict[str, Any] | None = None
    for tool, arguments in SCRIPT:
        if tool == "search":
            response = kernel.execute_search(arguments)
            search = response
        elif tool == "ref":
            assert search is not None
            response = kernel.execute_read(
                search["meta"]["stabilization"]["next_calls"][0]["arguments"])
        else:
            response = kernel.execute_read(arguments)
        out.append(as_received(response))
    return out


def test_responses_do_not_depend_on_registration_order(make_kernel) -> None:
    plugins = list(installed_policies().items())
    assert {"refgate", "relevance"} <= {name for name, _ in plugins}
    files = {"vendor/x.py": "load_config = None\n"}
    runs = responses_by_order(dict(plugins), lambda instances: _run(
        make_kernel(*instances, files={**FILES, **files},
                    settings={"refgate": {"strict": True}})))
    first_order, first = next(iter(runs.items()))
    codes = [r["meta"]["stabilization"]["reason_codes"] for r in first]
    assert "SEARCH_FIRST_REQUIRED" in codes[0]
    assert "LOW_RELEVANCE_OUTSIDE_TOPK" in codes[2]
    assert "LOW_RELEVANCE_OUTSIDE_TOPK" not in codes[3]  # said once per target and search
    assert "REFGATE_RANGE_TOO_WIDE" in codes[4]
    assert "RELEVANCE_EXCLUDED_PATH" in codes[5]
    for order, responses in runs.items():
        assert responses == first, f"{order} differs from {first_order}"
