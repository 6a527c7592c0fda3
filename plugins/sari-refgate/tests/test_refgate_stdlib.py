"""On a copy of real code (stdlib modules in a git repository): ids are stable, refs work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from git_workspace import stdlib_repository

from sari_core import Kernel
from sari_refgate import RefgatePlugin


@pytest.fixture
def stdlib_copy(tmp_path: Path) -> Path:
    return stdlib_repository(tmp_path / "stdlib")


def _search_and_follow(root: Path) -> dict[str, Any]:
    from sari_core.engine import Workspace

    with Kernel(Workspace([root]), plugins=[RefgatePlugin()], load_entry_points=False,
                analytics_sinks=[], settings={"refgate": {"strict": True}}) as kernel:
        search = kernel.execute_search({"query": "def dedent", "limit": 5})
        symbol = kernel.execute_search({"query": "Sniffer", "kind": "symbol"})
        block = search["meta"]["stabilization"]
        for call in block["next_calls"]:
            assert kernel.execute_read(call["arguments"])["ok"], call
        whole = kernel.execute_read({"mode": "file", "target": "configparser.py"})
        assert whole["error"]["code"] == "SEARCH_REF_REQUIRED"
        windows = [c for c in whole["meta"]["stabilization"]["next_calls"] if c["tool"] == "read"]
        assert windows[0]["arguments"] == {"mode": "file", "target": "configparser.py",
                                           "offset": 1, "limit": 100}
        assert kernel.execute_read(windows[0]["arguments"])["ok"]
        return {"ids": [m["candidate_id"] for m in search["matches"]],
                "symbol_ids": [m["candidate_id"] for m in symbol["matches"]],
                "bundles": [block["bundle_id"], symbol["meta"]["stabilization"]["bundle_id"]],
                "next_calls": block["next_calls"]}


def test_ids_on_real_code_are_the_same_in_fresh_kernels(stdlib_copy: Path) -> None:
    first = _search_and_follow(stdlib_copy)
    assert first["ids"] and first["symbol_ids"]
    assert first == _search_and_follow(stdlib_copy)
