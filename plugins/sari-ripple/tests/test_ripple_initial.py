"""Initial placement on a fresh start: reference counts split into thirds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_workspace import git_repository
from ripple_workspace import build_engine

from sari_core import Kernel
from sari_core.engine import Workspace
from sari_ripple import compute_initial_tiers, rank_by_references
from sari_ripple.config import tier_rules
from sari_ripple.initial import InitialPlacer
from sari_ripple.plugin import RipplePlugin

RULES = tier_rules()


def test_compute_initial_tiers_splits_the_ranking_into_thirds() -> None:
    ranking = rank_by_references({"e": 1, "a": 9, "c": 5, "b": 7, "d": 5, "f": 0, "g": 0})
    assert ranking == [("a", 9), ("b", 7), ("c", 5), ("d", 5), ("e", 1), ("f", 0), ("g", 0)]
    assert compute_initial_tiers(ranking, RULES) == {
        "a": ("L1", 9), "b": ("L1", 9),
        "c": ("L2", 6), "d": ("L2", 6),
        "e": ("L3", 3), "f": ("L3", 3), "g": ("L3", 3),
    }


def test_fewer_than_three_files_all_start_in_l3_and_l0_starts_empty() -> None:
    assert compute_initial_tiers([("a", 50), ("b", 1)], RULES) == {"a": ("L3", 3),
                                                                   "b": ("L3", 3)}
    placement = compute_initial_tiers(rank_by_references({str(i): i for i in range(30)}), RULES)
    assert {tier for tier, _ in placement.values()} == {"L1", "L2", "L3"}


def test_active_items_are_not_placed_and_unknown_ones_start_in_l3() -> None:
    placer = InitialPlacer({"a.py": 3, "b.py": 2, "c.py": 1}, RULES)
    assert placer.place_all(["a.py", "b.py", "new.py"], active=["b.py"]) == {
        "a.py": ("L1", 9), "new.py": ("L3", 3)}
    assert InitialPlacer(None, RULES).tier_for("a.py") == ("L3", 3)


class CountingEngine:
    """An engine exposing reference counts: checks the plugin asks the engine it was given."""

    def __init__(self, inner: Any, counts: dict[str, int]) -> None:
        self._inner, self.counts, self.calls = inner, counts, 0
        self.roots = inner.roots

    def reference_counts(self) -> dict[str, int]:
        self.calls += 1
        return dict(self.counts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


# Six defining files, d6 called from six user files, d5 from five, ... d1 from one.
FIXTURE: dict[str, str] = {
    **{f"lib/d{k}.py": f"def sym{k}(value):\n    return value + {k}\n" for k in range(1, 7)},
    **{f"app/u{j}.py": "".join(f"from lib.d{k} import sym{k}\n" for k in range(j, 7))
       + f"\n\ndef main{j}():\n    return "
       + " + ".join(f"sym{k}({j})" for k in range(j, 7)) + "\n"
       for j in range(1, 7)},
}
EXPECTED_PLACEMENT = {
    "L1": {"lib/d6.py": 9, "lib/d5.py": 9},
    "L2": {"lib/d4.py": 6, "lib/d3.py": 6},
    "L3": {"lib/d2.py": 3, "lib/d1.py": 3, **{f"app/u{j}.py": 3 for j in range(2, 7)}},
    "active": {"app/u1.py": 0},
}


def _tiers(response: dict[str, Any]) -> dict[str, dict[str, int]]:
    assert response["ok"], response
    return {tier: {e["item"]: e["n"] for e in data["items"]}
            for tier, data in response["tiers"].items() if data["items"]}


def _first_round(kernel: Kernel) -> dict[str, Any]:
    assert kernel.execute_read({"mode": "file", "target": "app/u1.py",
                                "session_id": "s"})["ok"]
    return kernel.execute_tool("context_tiers", {"items": sorted(FIXTURE), "session_id": "s"})


# Placement by references is a tier policy's: the adaptive layout orders by age alone.
GATED = {"ripple": {"policy": "gated"}}


def test_fresh_start_places_by_the_engine_reference_counts(workspace_root: Path,
                                                           state_folder: Path) -> None:
    counts = {"lib/d6.py": 6, "lib/d5.py": 5, "lib/d4.py": 4, "lib/d3.py": 3, "lib/d2.py": 2,
              "lib/d1.py": 1}
    engine = CountingEngine(build_engine(workspace_root, FIXTURE), counts)
    with Kernel(engine, plugins=[RipplePlugin()], load_entry_points=False,
                analytics_sinks=[], settings=GATED) as counted:
        response = _first_round(counted)
        assert _tiers(response) == EXPECTED_PLACEMENT
        assert {m["reason"] for m in response["moved"]} == {"initial"}
        counted.execute_tool("context_tiers", {"items": sorted(FIXTURE), "session_id": "s"})
    assert engine.calls == 1


def test_initial_placement_from_a_real_index_of_a_fixture_repository(
        workspace_root: Path, state_folder: Path) -> None:
    git_repository(workspace_root, FIXTURE)
    engine = Workspace([workspace_root])
    with Kernel(engine, plugins=[RipplePlugin()], load_entry_points=False,
                analytics_sinks=[], settings=GATED) as kernel:
        kernel.execute_search({"query": "sym6", "kind": "symbol", "session_id": "s"})
        counts = {path: count for path, count in engine.reference_counts().items()}
        assert counts == {f"lib/d{k}.py": k for k in range(1, 7)}
        assert _tiers(_first_round(kernel)) == EXPECTED_PLACEMENT
