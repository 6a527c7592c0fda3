"""``context_tiers`` with each tier policy: same wiring, the policy's own tiers and N values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ripple_workspace import build_engine
from test_ripple_initial import FIXTURE, CountingEngine
from test_ripple_tool import FILES, TierObserver, _read, _round, _tiers

from sari_core import Kernel
from sari_ripple import DEFAULT_POLICY, RippleSettings
from sari_ripple.plugin import RipplePlugin
from sari_ripple.store import state_path


def _settings(policy: str, **extra: Any) -> dict[str, dict[str, Any]]:
    return {"ripple": {"policy": policy, "initial_from_references": False, **extra}}


# (policy, tiers after round 1, tiers after round 2): a.py read in round 1, nothing in round 2.
TWO_ROUNDS: list[tuple[str, dict[str, dict[str, int]], dict[str, dict[str, int]]]] = [
    ("ripple", {"L3": {"pkg/b.py": 3, "pkg/c.py": 3}, "active": {"pkg/a.py": 0}},
     {"L3": {"pkg/a.py": 3, "pkg/b.py": 4, "pkg/c.py": 4}}),
    ("gated", {"L3": {"pkg/b.py": 3, "pkg/c.py": 3}, "active": {"pkg/a.py": 0}},
     {"L3": {"pkg/a.py": 3, "pkg/b.py": 4, "pkg/c.py": 4}}),
    ("fixed", {"L3": {"pkg/b.py": 1, "pkg/c.py": 1}, "active": {"pkg/a.py": 0}},
     {"L3": {"pkg/a.py": 1, "pkg/b.py": 2, "pkg/c.py": 2}}),
]


@pytest.mark.parametrize(("policy", "first", "second"), TWO_ROUNDS,
                         ids=[row[0] for row in TWO_ROUNDS])
def test_context_tiers_runs_the_configured_policy(make_kernel, policy: str,
                                                  first: dict[str, dict[str, int]],
                                                  second: dict[str, dict[str, int]]) -> None:
    observer = TierObserver()
    kernel = make_kernel(FILES, RipplePlugin(), observer, settings=_settings(policy))
    _read(kernel, "pkg/a.py")
    items = ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    response = _round(kernel, items)
    assert response["policy"] == policy and _tiers(response) == first
    response = _round(kernel, items)
    assert _tiers(response) == second
    assert observer.entries[-1][:3] == ("pkg/a.py", "L3", "active")
    blocks = response["plan"]["blocks"]
    assert [(b["tier"], "cache_control" in b) for b in blocks] == [("L3", True)]


def test_the_default_policy_is_adaptive(make_kernel) -> None:
    assert DEFAULT_POLICY == RippleSettings().policy == "adaptive"
    kernel = make_kernel(FILES)
    assert _round(kernel, ["pkg/a.py"])["policy"] == "adaptive"


def test_fixed_promotes_by_rounds_unchanged_and_an_edit_demotes(make_kernel) -> None:
    observer = TierObserver()
    kernel = make_kernel(FILES, RipplePlugin(), observer,
                         settings=_settings("fixed", fixed_thresholds={"L2": 2, "L1": 3,
                                                                       "L0": 4}))
    items = ["pkg/a.py", "pkg/b.py"]
    tiers = [_tiers(_round(kernel, items)) for _ in range(4)]
    assert tiers == [{"L3": {"pkg/a.py": 1, "pkg/b.py": 1}},
                     {"L2": {"pkg/a.py": 2, "pkg/b.py": 2}},
                     {"L1": {"pkg/a.py": 3, "pkg/b.py": 3}},
                     {"L0": {"pkg/a.py": 4, "pkg/b.py": 4}}]
    edit = kernel.execute_mutation("edit", {"path": "pkg/b.py", "old_string": "return 2",
                                            "new_string": "return 20", "session_id": "s1"})
    assert edit["ok"], edit
    assert observer.entries[-1] == ("pkg/b.py", "active", "L0", 0, "modified", "s1")
    response = _round(kernel, items)
    assert _tiers(response) == {"L0": {"pkg/a.py": 5}, "active": {"pkg/b.py": 0}}
    assert [(b["tier"], "cache_control" in b) for b in response["plan"]["blocks"]] == [
        ("L0", True), ("active", False)]


def test_a_state_saved_under_another_policy_means_a_fresh_start(make_kernel,
                                                                state_folder: Path) -> None:
    first = make_kernel(FILES, settings=_settings("ripple"))
    _round(first, ["pkg/a.py", "pkg/b.py"])
    _round(first, ["pkg/a.py", "pkg/b.py"])
    first.close()
    saved = json.loads(state_path(first.workspace_hash, "s1").read_text(encoding="utf-8"))
    assert saved["tracker"]["policy"] == "ripple"
    second = make_kernel(FILES, settings=_settings("fixed"))
    response = _round(second, ["pkg/a.py", "pkg/b.py"])
    assert response["round"] == 1 and response["policy"] == "fixed"
    assert _tiers(response) == {"L3": {"pkg/a.py": 1, "pkg/b.py": 1}}
    second.close()
    third = make_kernel(FILES, settings=_settings("fixed"))
    assert _tiers(_round(third, ["pkg/a.py", "pkg/b.py"])) == {"L3": {"pkg/a.py": 2,
                                                                      "pkg/b.py": 2}}


def test_fixed_places_a_fresh_start_by_reference_counts(workspace_root: Path,
                                                        state_folder: Path) -> None:
    counts = {f"lib/d{k}.py": k for k in range(1, 7)}
    engine = CountingEngine(build_engine(workspace_root, FIXTURE), counts)
    with Kernel(engine, plugins=[RipplePlugin()], load_entry_points=False,
                settings={"ripple": {"policy": "fixed"}}, analytics_sinks=[]) as kernel:
        _read(kernel, "app/u1.py", session="s")
        response = kernel.execute_tool("context_tiers", {"items": sorted(FIXTURE),
                                                         "session_id": "s"})
    assert _tiers(response) == {
        "L1": {"lib/d6.py": 10, "lib/d5.py": 10},
        "L2": {"lib/d4.py": 5, "lib/d3.py": 5},
        "L3": {"lib/d2.py": 1, "lib/d1.py": 1, **{f"app/u{j}.py": 1 for j in range(2, 7)}},
        "active": {"app/u1.py": 0},
    }


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="policy"):
        RippleSettings(policy="lru")  # type: ignore[arg-type]
