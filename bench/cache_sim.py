"""Prompt-cache simulator: how much of an agent's prompt each layout serves, and at what cost.

Rounds are the commits of real projects (``bench/cache_rounds.py``: the files a commit changes
are Active, every file seen so far is in the context, within a 200k-token window); the cache is
Anthropic's as ``bench/cache_model.py`` models it (breakpoints, a 20-block lookback, the
minimum cacheable prefix, 5-minute entries). Every cost is given on one scale: the same prompts
sent without any cache_control cost 1.0.

Yardsticks, printed for every repository:
  uncached      no cache_control at all: cost 1.000 by definition
  one-bp        everything in one block with one breakpoint at its end: every change anywhere
                rewrites the whole prompt (what an earlier version of this bench called "none")
  recency       files oldest-changed first, four blocks cut at the token quartiles, a breakpoint
                after each
  recency/file  the same order and breakpoints, one content block per file
  bound         the tokens of files unchanged since the previous round, out of all: no layout
                can serve more (its cost: those read at 0.1x, the rest plain, no writes)
The plugin's policies, each built by ``sari_ripple.new_tracker(policy=...)`` with default
settings and laid out by ``sari_ripple.round_plan``, so the rows are the plugin's own:
  adaptive (the default), gated, ripple (ripple promotion as first specified), fixed.

Repositories, in ``bench/data/commit_rounds`` (paths and sizes of the newest 400 first-parent
commits of each, written by ``bench/commit_rounds.py``; each file's first line names the
repository and its first and last commit): the tuning set (``tuning/``: flask, requests,
pluggy) is where every design choice was compared; the check set (``check/``: attrs, click)
was only run afterwards. Nothing is downloaded.

    python bench/cache_sim.py
    python bench/cache_sim.py --tune DIR_OR_FILES... --check DIR_OR_FILES... [--min-cache-tokens N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cache_model import (  # noqa: E402 - the bench folder is put on the path just above
    LOOKBACK_BLOCKS,
    READ_COST,
    WRITE_COST,
    Block,
    PromptCache,
    Tally,
)
from cache_rounds import (  # noqa: E402
    CHARS_PER_TOKEN,
    EVICT_TO,
    WINDOW_TOKENS,
    History,
    Round,
    load_history,
)

from sari_ripple import new_tracker, round_plan  # noqa: E402
from sari_ripple.config import PolicyName  # noqa: E402
from sari_ripple.plan import PromptPlan  # noqa: E402
from sari_ripple.tracking import TierTracker  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TUNE = REPO_ROOT / "bench" / "data" / "commit_rounds" / "tuning"
DEFAULT_CHECK = REPO_ROOT / "bench" / "data" / "commit_rounds" / "check"
QUARTERS = 4
POLICY_ROWS: tuple[PolicyName, ...] = ("adaptive", "gated", "ripple", "fixed")
YARDSTICKS = ("uncached", "one-bp", "recency", "recency/file")
BOUND = "bound"
# What the default policy must reach: points served over recency on every tuning repository,
# the share of the bound served overall, and the cost overall (uncached = 1).
TARGET_POINTS, TARGET_OF_BOUND, TARGET_COST = 3.0, 0.5, 0.80

Layout = Callable[[Round], list[Block]]


# --- the layouts --------------------------------------------------------------------------


def _blocks(history: History, round_: Round, names: list[str], breakpoints: set[int], *,
            per_file: bool) -> list[Block]:
    """``names`` in order, a breakpoint after the files at ``breakpoints`` (indices)."""
    blocks: list[Block] = []
    items: list[tuple[str, int]] = []
    tokens = 0
    for index, name in enumerate(names):
        items.append((name, round_.context[name]))
        tokens += history.tokens_of(round_, name)
        if per_file or index in breakpoints or index == len(names) - 1:
            blocks.append((tuple(items), tokens, index in breakpoints))
            items, tokens = [], 0
    return blocks


def uncached(history: History, *, breakpoint: bool = False) -> Layout:
    def layout(round_: Round) -> list[Block]:
        names = sorted(round_.context)
        return _blocks(history, round_, names, {len(names) - 1} if breakpoint else set(),
                       per_file=False)
    return layout


def recency(history: History, *, per_file: bool) -> Layout:
    """Oldest-changed first (ties by path), a breakpoint at each token quartile."""

    def layout(round_: Round) -> list[Block]:
        names = sorted(round_.context, key=lambda name: (round_.last_changed[name], name))
        total = sum(history.tokens_of(round_, name) for name in names)
        cuts, running, quarter = set(), 0, 1
        for index, name in enumerate(names):
            running += history.tokens_of(round_, name)
            while quarter <= QUARTERS and running * QUARTERS >= quarter * total:
                cuts.add(index)
                quarter += 1
        return _blocks(history, round_, names, cuts, per_file=per_file)
    return layout


def plugin_policy(history: History, tracker: TierTracker) -> Layout:
    """A plugin tracker, given the commit's files as Active, laid out as the plugin lays out."""

    def layout(round_: Round) -> list[Block]:
        def content(name: str) -> str | None:
            version = round_.context.get(name)
            return None if version is None else f"{name}@{version}"

        tracker.update_after_response(round_.changed, content, round_.changed)
        _, plan = round_plan(tracker, round_.context,
                             lambda name: history.tokens_of(round_, name))
        return blocks_of(plan, round_.context)
    return layout


def blocks_of(plan: PromptPlan, versions: dict[str, int]) -> list[Block]:
    return [(tuple((entry.item, versions[entry.item]) for entry in block.items), block.tokens,
             block.cached) for block in plan.blocks]


def layouts(history: History) -> dict[str, Layout]:
    """The compared layouts by row name, in report order."""
    rows: dict[str, Layout] = {
        "uncached": uncached(history),
        "one-bp": uncached(history, breakpoint=True),
        "recency": recency(history, per_file=False),
        "recency/file": recency(history, per_file=True),
    }
    for policy in POLICY_ROWS:
        rows[policy] = plugin_policy(history, new_tracker(policy=policy))
    return rows


# --- the run ------------------------------------------------------------------------------


def simulate(history: History, min_tokens: int = 1024, lookback: int = LOOKBACK_BLOCKS,
             per_block_minimum: bool = False) -> dict[str, Tally]:
    """One tally per row, and the bound's (``read`` = unchanged tokens, nothing written)."""
    rows = layouts(history)
    tallies = {name: Tally() for name in [*rows, BOUND]}
    caches = {name: PromptCache(min_tokens, per_block_minimum, lookback) for name in rows}
    previous: Round | None = None
    for round_ in history.rounds:
        for name, layout in rows.items():
            caches[name].request(layout(round_), tallies[name])
        bound = tallies[BOUND]
        bound.prompt += sum(history.tokens_of(round_, name) for name in round_.context)
        bound.read += history.unchanged_tokens(previous, round_)
        bound.requests += 1
        previous = round_
    return tallies


def data_files(arguments: Iterable[str], default: Path) -> Iterator[Path]:
    given = [Path(argument) for argument in arguments] or [default]
    for path in given:
        if path.is_dir():
            yield from sorted(path.glob("*.jsonl"))
        elif path.is_file():
            yield path
        else:
            raise SystemExit(f"cache_sim: no commit_rounds data at {path} "
                             f"(give the folder holding *.jsonl, or the files)")


# --- the report ---------------------------------------------------------------------------

HEADER = (f"{'repository':<20}{'layout':<14}{'prompt Mtok':>12}{'served %':>10}"
          f"{'of bound':>10}{'written Mtok':>14}{'bp/req':>8}{'cost':>8}")


def row(repo: str, name: str, tally: Tally, bound: Tally) -> str:
    served = tally.read / tally.prompt if tally.prompt else 0.0
    of_bound = tally.read / bound.read if bound.read else 0.0
    cost = tally.cost / tally.prompt if tally.prompt else 0.0
    return (f"{repo:<20}{name:<14}{tally.prompt / 1e6:>12.2f}{100 * served:>10.1f}"
            f"{of_bound:>10.2f}{tally.written / 1e6:>14.2f}"
            f"{tally.breakpoints / max(tally.requests, 1):>8.2f}{cost:>8.3f}")


def figures(tally: Tally, bound: Tally) -> dict[str, float]:
    """One row's figures, as ``--json`` writes them."""
    return {"prompt_tokens": tally.prompt, "served": tally.read / tally.prompt if tally.prompt
            else 0.0, "of_bound": tally.read / bound.read if bound.read else 0.0,
            "written_tokens": tally.written, "cost": tally.cost / tally.prompt if tally.prompt
            else 0.0, "breakpoints_per_request": tally.breakpoints / max(tally.requests, 1)}


def set_figures(results: dict[str, dict[str, Tally]], totals: dict[str, Tally]
                ) -> dict[str, dict[str, dict[str, float]]]:
    rows = {repo: {name: figures(tally, tallies[BOUND]) for name, tally in tallies.items()}
            for repo, tallies in results.items()}
    rows["all"] = {name: figures(tally, totals[BOUND]) for name, tally in totals.items()}
    return rows


def report_set(title: str, results: dict[str, dict[str, Tally]]) -> dict[str, Tally]:
    """Print one repository set with its totals; return the totals."""
    print(title)
    print(HEADER)
    totals: dict[str, Tally] = {}
    for repo, tallies in results.items():
        for name, tally in tallies.items():
            print(row(repo, name, tally, tallies[BOUND]))
            totals.setdefault(name, Tally()).add(tally)
    for name, tally in totals.items():
        print(row("all", name, tally, totals[BOUND]))
    print()
    return totals


def targets(title: str, results: dict[str, dict[str, Tally]], totals: dict[str, Tally]
            ) -> bool:
    """Print whether the default policy reaches its targets on one repository set."""
    met = True
    print(f"targets for adaptive, {title}:")
    for repo, tallies in results.items():
        for yardstick in ("recency", "recency/file"):
            gain = 100 * (tallies["adaptive"].read - tallies[yardstick].read) \
                / tallies["adaptive"].prompt
            ok = gain >= TARGET_POINTS
            met &= ok or yardstick == "recency/file"
            print(f"  {repo:<20} served - {yardstick:<13} {gain:+6.1f} points "
                  f"(>= +{TARGET_POINTS:g}{'' if yardstick == 'recency' else ', stricter'}): "
                  f"{'met' if ok else 'NOT met'}")
    of_bound = totals["adaptive"].read / totals[BOUND].read
    cost = totals["adaptive"].cost / totals["adaptive"].prompt
    met &= of_bound >= TARGET_OF_BOUND and cost <= TARGET_COST
    print(f"  {'all':<20} of bound {of_bound:.2f} (>= {TARGET_OF_BOUND}): "
          f"{'met' if of_bound >= TARGET_OF_BOUND else 'NOT met'}; cost {cost:.3f} "
          f"(<= {TARGET_COST}): {'met' if cost <= TARGET_COST else 'NOT met'}\n")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tune", nargs="*", default=[], help="commit_rounds folder(s) or "
                        f"files the policies were compared on; default {DEFAULT_TUNE}")
    parser.add_argument("--check", nargs="*", default=[], help="commit_rounds kept aside; "
                        f"default {DEFAULT_CHECK}")
    parser.add_argument("--min-cache-tokens", type=int, default=1024,
                        help="minimum cacheable prefix (1024; 2048 or 4096 for some models)")
    parser.add_argument("--lookback", type=int, default=LOOKBACK_BLOCKS,
                        help="block boundaries the cache lookup checks back from a breakpoint")
    parser.add_argument("--per-block-minimum", action="store_true",
                        help="a breakpoint's own block must reach the minimum (stricter)")
    parser.add_argument("--window", type=int, default=WINDOW_TOKENS,
                        help="context window in tokens")
    parser.add_argument("--evict-to", type=float, default=EVICT_TO,
                        help="on overflow, evict down to this share of the window")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="also write every row's figures as JSON to PATH (the docs' chart "
                             "reads docs/data/cache_sim.json)")
    options = parser.parse_args(argv)
    print(f"tokens = bytes / {CHARS_PER_TOKEN}; window {options.window} tokens, least recently "
          f"changed evicted first down to {options.evict_to:g} of it; minimum prefix "
          f"{options.min_cache_tokens}; lookback {options.lookback} blocks; cost = plain + "
          f"{WRITE_COST} x written + {READ_COST} x read, over the uncached cost\n")
    all_met = True
    written: dict[str, object] = {"min_cache_tokens": options.min_cache_tokens,
                                  "lookback": options.lookback, "window": options.window,
                                  "evict_to": options.evict_to, "sets": {}}
    for title, arguments, default in (
            ("tuning set (designs compared here)", options.tune, DEFAULT_TUNE),
            ("check set (kept aside, run after the choice)", options.check, DEFAULT_CHECK)):
        results = {}
        for path in data_files(arguments, default):
            history = load_history(path, options.window, options.evict_to)
            results[history.repo] = simulate(history, options.min_cache_tokens,
                                             options.lookback, options.per_block_minimum)
        if not results:
            print(f"cache_sim: no *.jsonl files for the {title}", file=sys.stderr)
            return 1
        totals = report_set(f"{title}: {sum(t[BOUND].requests for t in results.values())} "
                            f"rounds over {len(results)} repositories", results)
        all_met &= targets(title.split(" (")[0], results, totals)
        written["sets"][title.split(" (")[0]] = set_figures(results, totals)  # type: ignore[index]
    print("all targets met" if all_met else "some targets NOT met")
    if options.json:
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps(written, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
