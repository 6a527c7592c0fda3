"""The prompt-cache simulator of ``bench/cache_sim.py``: prefix semantics and the rounds."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "cache_sim.py"


@pytest.fixture(scope="module")
def sim():
    spec = importlib.util.spec_from_file_location("cache_sim", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cache_sim"] = module
    spec.loader.exec_module(module)
    return module


def _block(items: str, tokens: int, breakpoint: bool = True):
    return (tuple((item, 1) for item in items), tokens, breakpoint)


def test_a_block_is_served_only_if_it_and_every_block_before_it_are_unchanged(sim) -> None:
    cache, tally = sim.PrefixCache(min_tokens=0, per_block_minimum=False), sim.Tally()
    layout = [_block("a", 100), _block("b", 200), _block("c", 300), _block("z", 50, False)]
    cache.request(layout, tally)
    assert (tally.read, tally.written, tally.prompt) == (0, 600, 650)
    cache.request(layout, tally)
    assert (tally.read, tally.written) == (600, 600)
    changed_middle = [layout[0], _block("B", 200), layout[2], layout[3]]
    cache.request(changed_middle, tally)
    assert (tally.read, tally.written) == (700, 1100)  # a served; B and c written again
    changed_first = [_block("A", 100), *changed_middle[1:]]
    cache.request(changed_first, tally)
    assert (tally.read, tally.written) == (700, 1700)


def test_the_minimum_counts_the_prefix_or_the_block(sim) -> None:
    layout = [_block("a", 2000), _block("b", 100)]
    for per_block, expected_read in ((False, 2100), (True, 2000)):
        cache, tally = sim.PrefixCache(1024, per_block_minimum=per_block), sim.Tally()
        cache.request(layout, tally)
        cache.request(layout, tally)
        assert tally.read == expected_read


def test_the_same_bytes_cut_into_other_blocks_share_the_cache(sim) -> None:
    cache, tally = sim.PrefixCache(0, per_block_minimum=False), sim.Tally()
    cache.request([_block("a", 100), _block("b", 100)], tally)
    cache.request([_block("ab", 200)], tally)
    assert tally.read == 200


def test_rounds_follow_the_commits(sim, tmp_path: Path) -> None:
    data = tmp_path / "toy.jsonl"
    commits = [
        {"commit": "1", "files": [{"path": "a.py", "status": "A", "bytes": 4000},
                                  {"path": "b.py", "status": "A", "bytes": 8000}]},
        {"commit": "2", "files": [{"path": "a.py", "status": "M", "bytes": 4400}]},
        {"commit": "3", "files": [{"path": "b.py", "status": "D", "bytes": 0}]},
    ]
    data.write_text("\n".join([json.dumps({"repo": "toy/toy"}),
                               *map(json.dumps, commits)]), encoding="utf-8")
    history = sim.load_history(data)
    assert [(r.changed, r.context) for r in history.rounds] == [
        (["a.py", "b.py"], {"a.py": 1, "b.py": 1}),
        (["a.py"], {"a.py": 2, "b.py": 1}),
        ([], {"a.py": 2}),
    ]
    assert history.tokens[("a.py", 2)] == 1100
    tallies = sim.simulate(history, 1024)
    assert tallies[("prefix", "none")].read == 0
    ripple = tallies[("prefix", "ripple")]
    # Round 1: a and b Active, nothing cached. Round 2: b in L3 (written), a Active.
    # Round 3: b deleted, a in L3 (written; the L3 block differs from round 2's).
    assert (ripple.prompt, ripple.read, ripple.written) == (3000 + 3100 + 1100, 0, 2000 + 1100)


def test_the_data_is_found_from_the_repository_or_an_argument(sim, tmp_path: Path) -> None:
    if sim.DEFAULT_DATA.is_dir():
        assert {p.name for p in sim.data_files([])} >= {"flask.jsonl"}
    assert list(sim.data_files([str(tmp_path)])) == []
    with pytest.raises(SystemExit):
        list(sim.data_files([str(tmp_path / "missing")]))


def _busy_history(sim, tmp_path: Path):
    """Seven files, an eighth a round later (first by name), then only z.py is edited."""
    data = tmp_path / "busy.jsonl"
    commits = [{"commit": "0", "files": [{"path": f"{name}.py", "status": "A", "bytes": 8000}
                                         for name in "abcdefz"]},
               {"commit": "1", "files": [{"path": "0.py", "status": "A", "bytes": 8000}]}]
    commits += [{"commit": str(k), "files": [{"path": "z.py", "status": "M",
                                              "bytes": 8000 + k}]} for k in range(2, 12)]
    data.write_text("\n".join([json.dumps({"repo": "toy/busy"}), *map(json.dumps, commits)]),
                    encoding="utf-8")
    return sim.load_history(data)


def test_the_policy_rows_are_the_plugins_trackers(sim, tmp_path: Path) -> None:
    from sari_ripple import POLICIES, FixedThresholdTracker, GatedRippleTracker, RippleTracker

    assert {policy for _, policy, _ in sim.POLICY_ROWS} == set(POLICIES)
    history = _busy_history(sim, tmp_path)
    tallies = sim.simulate(history, 1024)
    for row, tracker in (("fixed", FixedThresholdTracker()), ("ripple", RippleTracker()),
                         ("gated", GatedRippleTracker())):
        policy = sim.tracked(history, tracker, token_aware=False, min_tokens=1024)
        cache, tally = sim.PrefixCache(1024, per_block_minimum=False), sim.Tally()
        for round_ in history.rounds:
            cache.request(sim.blocks_of(policy(round_), round_.context), tally)
        assert (tally.read, tally.written) == (tallies[("prefix", row)].read,
                                               tallies[("prefix", row)].written), row
    # Ripple settles a..f in their tiers within two rounds and then nothing moves; fixed
    # lifts a..f above 0.py (which sorts first in their block) at 5 rounds, then 0.py
    # after them: each lift rewrites the prefix.
    assert (tallies[("prefix", "ripple")].read, tallies[("prefix", "fixed")].read) == (
        126000, 70000)


def test_scale_rows_scale_each_policy_and_round_up(sim) -> None:
    assert sim.scaled_fixed_thresholds(0.5) == {"L2": 3, "L1": 5, "L0": 10}
    assert sim.scaled_tier_config(2)["L3"] == {"entry_n": 6, "promotion_threshold": 12}
    rows = sim.policies(sim.History("toy", [], {}), 1024, [0.5, 2])
    assert list(rows)[-6:] == ["ripple x0.5", "fixed x0.5", "gated x0.5",
                               "ripple x2", "fixed x2", "gated x2"]
