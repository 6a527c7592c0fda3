"""``bench/cache_sim.py``: the cache model, the rounds in a window, the yardsticks and the rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_modules import load_bench


@pytest.fixture(scope="module")
def sim():
    return load_bench("cache_sim")


def _block(items: str, tokens: int, breakpoint: bool = True):
    return (tuple((item, 1) for item in items), tokens, breakpoint)


def _files(items: str, tokens: int, breakpoints: str):
    """One block per item, ``tokens`` each, a breakpoint after the items in ``breakpoints``."""
    return [(((item, 1),), tokens, item in breakpoints) for item in items]


def _cache(sim, min_tokens: int = 0, **options):
    return sim.PromptCache(min_tokens, **options), sim.Tally()


def test_a_block_is_served_only_if_it_and_every_block_before_it_are_unchanged(sim) -> None:
    cache, tally = _cache(sim)
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


def test_the_lookup_finds_an_entry_at_a_block_boundary_up_to_the_lookback(sim) -> None:
    # Last request: a breakpoint after c. This one: after e. One block per file: the lookup
    # walks back from e's breakpoint to c's boundary and hits; one block for a..e cannot.
    first, moved = _files("abcde", 500, "c"), _files("abcde", 500, "e")
    cache, tally = _cache(sim)
    cache.request(first, tally)
    cache.request(moved, tally)
    assert (tally.read, tally.written) == (1500, 1500 + 1000)
    cache, tally = _cache(sim)
    cache.request([_block("abc", 1500), _block("de", 1000, False)], tally)
    cache.request([_block("abcde", 2500)], tally)
    assert tally.read == 0
    cache, tally = _cache(sim, lookback=2)   # c's boundary is three back from e's
    cache.request(first, tally)
    cache.request(moved, tally)
    assert tally.read == 0


def test_an_entry_lives_while_requests_use_it(sim) -> None:
    cache, tally = _cache(sim)
    cache.request(_files("abc", 500, "ac"), tally)
    cache.request(_files("abX", 500, "b"), tally)   # hits a; writes b; c's entry unused
    assert (tally.read, tally.written) == (500, 1500 + 500)
    cache.request(_files("abc", 500, "c"), tally)   # b's entry (written last) is found
    assert tally.read == 500 + 1000


def test_the_minimum_counts_the_prefix_or_the_block(sim) -> None:
    layout = [_block("a", 2000), _block("b", 100)]
    for per_block, expected_read in ((False, 2100), (True, 2000)):
        cache, tally = _cache(sim, 1024, per_block_minimum=per_block)
        cache.request(layout, tally)
        cache.request(layout, tally)
        assert tally.read == expected_read


def _history(sim, tmp_path: Path, commits: list[dict], **window):
    data = tmp_path / "toy.jsonl"
    data.write_text("\n".join([json.dumps({"repo": "toy/toy"}), *map(json.dumps, commits)]),
                    encoding="utf-8")
    return sim.load_history(data, **window)


def _commit(*files: tuple[str, str, int]) -> dict:
    return {"commit": "c", "files": [{"path": p, "status": s, "bytes": b} for p, s, b in files]}


def test_rounds_follow_the_commits(sim, tmp_path: Path) -> None:
    history = _history(sim, tmp_path, [
        _commit(("a.py", "A", 4000), ("b.py", "A", 8000)),
        _commit(("a.py", "M", 4400)),
        _commit(("b.py", "D", 0)),
    ])
    assert [(r.changed, r.context, r.last_changed) for r in history.rounds] == [
        (["a.py", "b.py"], {"a.py": 1, "b.py": 1}, {"a.py": 0, "b.py": 0}),
        (["a.py"], {"a.py": 2, "b.py": 1}, {"a.py": 1, "b.py": 0}),
        ([], {"a.py": 2}, {"a.py": 1}),
    ]
    assert history.tokens[("a.py", 2)] == 1100
    rounds = history.rounds
    assert [history.unchanged_tokens(p, r) for p, r in zip([None, *rounds], rounds,
                                                            strict=False)] == [0, 2000, 1100]


def test_the_window_evicts_the_least_recently_changed_and_keeps_the_rounds_files(
        sim, tmp_path: Path) -> None:
    history = _history(sim, tmp_path, [
        _commit(("old.py", "A", 40_000), ("mid.py", "A", 40_000)),
        _commit(("mid.py", "M", 40_000), ("new.py", "A", 40_000)),
        _commit(("big.py", "A", 160_000)),
    ], window=40_000, evict_to=0.75)
    contexts = [set(r.context) for r in history.rounds]
    # 20k tokens over a 40k window: nothing goes. Then 30k: fits. Then 70k: evict the least
    # recently changed (old, then mid, then new) until at most 30k; big.py is this round's.
    assert contexts == [{"old.py", "mid.py"}, {"old.py", "mid.py", "new.py"}, {"big.py"}]
    for round_ in history.rounds:
        total = sum(history.tokens_of(round_, name) for name in round_.context)
        assert total <= 40_000 or set(round_.context) == set(round_.changed)


def test_the_data_is_found_from_the_repository_or_an_argument(sim, tmp_path: Path) -> None:
    assert {p.name for p in sim.data_files([], sim.DEFAULT_CHECK)} == {"attrs.jsonl",
                                                                       "click.jsonl"}
    if sim.DEFAULT_TUNE.is_dir():
        assert {p.name for p in sim.data_files([], sim.DEFAULT_TUNE)} >= {"flask.jsonl"}
    assert list(sim.data_files([str(tmp_path)], sim.DEFAULT_CHECK)) == []
    with pytest.raises(SystemExit):
        list(sim.data_files([str(tmp_path / "missing")], sim.DEFAULT_CHECK))


def _busy(sim, tmp_path: Path):
    """Seven files, then z.py edited every round and a.py every third: a long stable middle."""
    commits = [_commit(*[(f"{name}.py", "A", 8000) for name in "abcdefz"])]
    commits += [_commit(("z.py", "M", 8000 + k), *([("a.py", "M", 8000 + k)] if k % 3 == 0
                                                      else [])) for k in range(1, 30)]
    return _history(sim, tmp_path, commits)


def test_yardsticks_and_rows(sim, tmp_path: Path) -> None:
    tallies = sim.simulate(_busy(sim, tmp_path))
    assert list(tallies) == [*sim.YARDSTICKS, *sim.POLICY_ROWS, sim.BOUND]
    prompt = tallies["uncached"].prompt
    assert all(tally.prompt == prompt for tally in tallies.values())
    assert tallies["uncached"].cost == prompt and tallies["uncached"].read == 0
    # One breakpoint at the end: z.py changes every round, so everything is rewritten.
    assert tallies["one-bp"].read == 0 and tallies["one-bp"].written == prompt
    bound = tallies[sim.BOUND].read
    for name in [*sim.YARDSTICKS, *sim.POLICY_ROWS]:
        assert tallies[name].read <= bound, name
        assert tallies[name].breakpoints <= 4 * tallies[name].requests, name
    # The stable middle is served and only what changes is written: the cheapest layout.
    assert tallies["adaptive"].read > 0.85 * bound
    others = [name for name in [*sim.YARDSTICKS, *sim.POLICY_ROWS] if name != "adaptive"]
    assert tallies["adaptive"].cost < min(tallies[name].cost for name in others)


def test_the_policy_rows_are_the_plugins_trackers(sim, tmp_path: Path) -> None:
    from sari_ripple import POLICIES, new_tracker

    assert set(sim.POLICY_ROWS) == set(POLICIES)
    history = _busy(sim, tmp_path)
    tallies = sim.simulate(history)
    for policy in sim.POLICY_ROWS:
        layout = sim.plugin_policy(history, new_tracker(policy=policy))
        cache, tally = _cache(sim, 1024)
        for round_ in history.rounds:
            cache.request(layout(round_), tally)
        assert (tally.read, tally.written) == (tallies[policy].read, tallies[policy].written)


def test_the_bench_prints_both_sets_and_the_targets(sim, tmp_path: Path, capsys) -> None:
    history_file = tmp_path / "toy.jsonl"
    _busy(sim, tmp_path)   # writes toy.jsonl
    assert sim.main(["--tune", str(history_file), "--check", str(history_file)]) == 0
    out = capsys.readouterr().out
    assert "tuning set" in out and "check set" in out
    for name in [*sim.YARDSTICKS, *sim.POLICY_ROWS, sim.BOUND]:
        assert f" {name} " in out
    assert "targets for adaptive, tuning set:" in out
