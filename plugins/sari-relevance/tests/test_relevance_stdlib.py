"""On a copy of real code (stdlib modules in a git repository): alternatives are stable."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_workspace import stdlib_repository

from sari_core import Kernel
from sari_relevance import RelevancePlugin


@pytest.fixture
def stdlib_copy(tmp_path: Path) -> Path:
    return stdlib_repository(tmp_path / "stdlib")


def _session(root: Path) -> tuple[list[str], dict]:
    from sari_core.engine import Workspace

    with Kernel(Workspace([root]), plugins=[RelevancePlugin()], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        search = kernel.execute_search({"query": "JSONDecodeError", "limit": 20})
        ranked = list(dict.fromkeys(m["path"] for m in search["matches"]))
        hit = kernel.execute_read({"mode": "file", "target": ranked[0], "limit": 20})
        assert hit["meta"]["stabilization"]["reason_codes"] == []
        miss = kernel.execute_read({"mode": "file", "target": "textwrap.py", "limit": 20})
        block = miss["meta"]["stabilization"]
        block.pop("metrics_snapshot")
        return ranked, block


def test_alternatives_on_real_code_are_the_ranked_results_and_stable(stdlib_copy: Path) -> None:
    ranked, block = _session(stdlib_copy)
    assert ranked[0].startswith("json/") and "textwrap.py" not in ranked
    assert block["reason_codes"] == ["LOW_RELEVANCE_OUTSIDE_TOPK"]
    assert block["annotations"]["relevance"]["alternatives"] == ranked[:3]
    assert block["warnings"][0].startswith(
        "Not among the top 10 results of the latest search 'JSONDecodeError': "
        + ", ".join(ranked[:3]) + ".")
    assert _session(stdlib_copy) == (ranked, block)
