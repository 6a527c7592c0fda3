"""Prompt-cache simulator: how much of an agent's prompt each tiering policy serves from cache.

Rounds are the commits of real projects (``commit_rounds/*.jsonl``, see the data README):
the files a commit changes are Active that round, and every file seen so far (and not
deleted) is in the context. Each policy lays the context out as prompt blocks, the most
stable first, with a cache breakpoint after each cached block; a token is ``bytes / 4``.

Cache model (prefix semantics): a block is served from cache only if it and every block
before it are byte-identical to the previous request's, and the previous request had a
breakpoint there. Tokens up to the last breakpoint that are not served are written to the
cache; tokens after it are plain input. Costs use Anthropic's multipliers (cache write
1.25x, cache read 0.1x, plain input 1x). Two minimum-size rules are simulated: the
provider's (a breakpoint counts when the prompt *up to it* has at least the minimum) and a
stricter per-block rule (the block itself must have the minimum), which is what the
token-aware option guards against.

Policies compared in one run (every tracker is the plugin's, built by
sari_ripple.new_tracker with default settings, so the rows are the plugin's policies):
  none          all context in one block with one breakpoint
  fixed         policy "fixed", the tracker ripple promotion replaces: L2/L1/L0 after 5/10/20
                unchanged rounds (sari_ripple.FixedThresholdTracker)
  ripple        policy "ripple": ripple promotion (sari_ripple.RippleTracker)
  gated         policy "gated", the default: ripple promotion that also needs the item
                unchanged for 5/10/20 rounds to enter L2/L1/L0 (sari_ripple.GatedRippleTracker)
  ripple+ta, gated+ta   the same with token_aware on (tiers under the minimum merge down)
  with --scales K,...: sensitivity rows, each value times K (rounded up)
  ripple xK     ripple with every TIER_CONFIG value times K
  fixed xK      fixed with the thresholds times K (a slower fixed policy)
  gated xK      gated with its age gate (the fixed thresholds) times K, TIER_CONFIG as is

    python bench/cache_sim.py                      # data from ../shared/data next to the repo
    python bench/cache_sim.py path/to/commit_rounds [--min-cache-tokens 1024]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sari_ripple import (
    FIXED_THRESHOLDS,
    TIER_CONFIG,
    FixedThresholdTracker,
    GatedRippleTracker,
    RippleTracker,
    TierTracker,
    fixed_rules,
    new_tracker,
    tier_rules,
)
from sari_ripple.config import PolicyName
from sari_ripple.plan import LayoutItem, PromptPlan, plan_from_layout, tier_layout

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "commit_rounds"
CHARS_PER_TOKEN = 4
WRITE_COST, READ_COST = 1.25, 0.1
# (row, sari_ripple policy, token_aware): the plugin's own trackers, default settings.
POLICY_ROWS: tuple[tuple[str, PolicyName, bool], ...] = (
    ("fixed", "fixed", False),
    ("ripple", "ripple", False),
    ("ripple+ta", "ripple", True),
    ("gated", "gated", False),
    ("gated+ta", "gated", True),
)

Block = tuple[tuple[tuple[str, int], ...], int, bool]  # (identity, tokens, breakpoint after)


# --- the rounds ---------------------------------------------------------------------------


@dataclass
class Round:
    changed: list[str]            # files added or modified by the commit: Active
    context: dict[str, int]       # every live file seen so far -> version


@dataclass
class History:
    repo: str
    rounds: list[Round]
    tokens: dict[tuple[str, int], int]   # (path, version) -> tokens


def load_history(path: Path) -> History:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    versions: dict[str, int] = {}
    live: set[str] = set()
    tokens: dict[tuple[str, int], int] = {}
    rounds = []
    for line in lines[1:]:
        commit = json.loads(line)
        changed = []
        for entry in commit["files"]:
            name = entry["path"]
            if entry["status"] == "D":
                live.discard(name)
                continue
            versions[name] = versions.get(name, 0) + 1
            live.add(name)
            tokens[(name, versions[name])] = -(-int(entry["bytes"]) // CHARS_PER_TOKEN)
            changed.append(name)
        rounds.append(Round(sorted(set(changed)), {name: versions[name] for name in live}))
    return History(header.get("repo", path.stem), rounds, tokens)


# --- the policies -------------------------------------------------------------------------

Policy = Callable[[Round], PromptPlan]


def _layout_plan(layout: dict[str, list[LayoutItem]], *, token_aware: bool,
                 min_tokens: int) -> PromptPlan:
    return plan_from_layout(layout, token_aware=token_aware,  # type: ignore[arg-type]
                            min_cache_tokens=min_tokens)


def no_tiering(history: History) -> Policy:
    def plan(round_: Round) -> PromptPlan:
        items = [LayoutItem(name, 0, history.tokens[(name, version)])
                 for name, version in sorted(round_.context.items())]
        return _layout_plan({"L0": items}, token_aware=False, min_tokens=0)
    return plan


def _times(value: int, scale: float) -> int:
    return math.ceil(value * scale)


def scaled_tier_config(scale: float) -> dict[str, dict[str, int | None]]:
    """Ripple's TIER_CONFIG with every entry N and threshold multiplied by ``scale``."""
    return {tier: {key: None if value is None else _times(value, scale)
                   for key, value in rule.items()}
            for tier, rule in TIER_CONFIG.items()}


def scaled_fixed_thresholds(scale: float) -> dict[str, int]:
    """The fixed thresholds (L2/L1/L0 at 5/10/20 rounds) multiplied by ``scale``."""
    return {tier: _times(value, scale) for tier, value in FIXED_THRESHOLDS.items()}


def tracked(history: History, tracker: TierTracker, *, token_aware: bool,
            min_tokens: int) -> Policy:
    """A plugin tracker laid out as the plugin lays it out: the commit's files are Active."""

    def plan(round_: Round) -> PromptPlan:
        def content(name: str) -> str | None:
            version = round_.context.get(name)
            return None if version is None else f"{name}@{version}"

        tracker.update_after_response(round_.changed, content, round_.changed)
        layout = tier_layout(tracker, round_.context,
                             lambda name: history.tokens[(name, round_.context[name])])
        return _layout_plan(layout, token_aware=token_aware, min_tokens=min_tokens)
    return plan


# --- the cache ----------------------------------------------------------------------------


@dataclass
class Tally:
    prompt: int = 0
    read: int = 0
    written: int = 0
    breakpoints: int = 0
    requests: int = 0
    top_changes: int = 0      # requests whose first (most stable) block differs from the last's
    top_tokens: int = 0       # tokens in first blocks

    @property
    def cost(self) -> float:
        return (self.prompt - self.read - self.written) + WRITE_COST * self.written \
            + READ_COST * self.read


@dataclass
class PrefixCache:
    """What the provider holds after a request: the prefixes ending at its breakpoints."""

    min_tokens: int
    per_block_minimum: bool
    cached: set[tuple[tuple[str, int], ...]] = field(default_factory=set)
    top: tuple[tuple[str, int], ...] | None = None

    def request(self, blocks: list[Block], tally: Tally) -> None:
        # A prefix is the items (and versions) up to a breakpoint, however they are cut into
        # blocks: two layouts that render the same bytes up to a breakpoint share its cache.
        prefix: list[tuple[str, int]] = []
        total = read = last_cacheable = 0
        now_cached = set()
        for identity, tokens, breakpoint in blocks:
            prefix.extend(identity)
            total += tokens
            if not breakpoint:
                continue
            big_enough = (tokens if self.per_block_minimum else total) >= self.min_tokens
            if not big_enough:
                continue
            key = tuple(prefix)
            if key in self.cached:
                read = total
            last_cacheable = total
            now_cached.add(key)
        tally.prompt += total
        tally.read += read
        tally.written += max(0, last_cacheable - read)
        tally.breakpoints += sum(1 for _, _, breakpoint in blocks if breakpoint)
        tally.requests += 1
        top = blocks[0][0] if blocks else ()
        tally.top_changes += top != self.top
        tally.top_tokens += blocks[0][1] if blocks else 0
        self.top = top
        self.cached = now_cached


def blocks_of(plan: PromptPlan, versions: dict[str, int]) -> list[Block]:
    return [(tuple((entry.item, versions[entry.item]) for entry in block.items), block.tokens,
             block.cached) for block in plan.blocks]


# --- the run ------------------------------------------------------------------------------

def policies(history: History, min_tokens: int, scales: Iterable[float] = ()
             ) -> dict[str, Policy]:
    """The compared policies by name, in report order (then the ``xK`` rows of ``scales``)."""
    running = {"none": no_tiering(history)}
    for name, policy, token_aware in POLICY_ROWS:
        running[name] = tracked(history, new_tracker(policy=policy), token_aware=token_aware,
                                min_tokens=min_tokens)
    for scale in scales:
        fixed = scaled_fixed_thresholds(scale)
        scaled: dict[str, TierTracker] = {
            "ripple": RippleTracker(tier_rules(scaled_tier_config(scale))),
            "fixed": FixedThresholdTracker(fixed_rules(fixed)),
            "gated": GatedRippleTracker(gates={tier: rule.entry_n
                                               for tier, rule in fixed_rules(fixed).items()}),
        }
        for name, tracker in scaled.items():
            running[f"{name} x{scale:g}"] = tracked(history, tracker, token_aware=False,
                                                    min_tokens=min_tokens)
    return running


def simulate(history: History, min_tokens: int, scales: Iterable[float] = ()
             ) -> dict[tuple[str, str], Tally]:
    """Tallies keyed by (minimum rule, policy)."""
    running = policies(history, min_tokens, scales)
    tallies: dict[tuple[str, str], Tally] = {}
    caches: dict[tuple[str, str], PrefixCache] = {}
    for rule in ("prefix", "block"):
        for name in running:
            tallies[(rule, name)] = Tally()
            caches[(rule, name)] = PrefixCache(min_tokens, per_block_minimum=rule == "block")
    for round_ in history.rounds:
        for name, policy in running.items():
            blocks = blocks_of(policy(round_), round_.context)
            for rule in ("prefix", "block"):
                caches[(rule, name)].request(blocks, tallies[(rule, name)])
    return tallies


def data_files(arguments: Iterable[str]) -> Iterator[Path]:
    given = [Path(argument) for argument in arguments] or [DEFAULT_DATA]
    for path in given:
        if path.is_dir():
            yield from sorted(path.glob("*.jsonl"))
        elif path.is_file():
            yield path
        else:
            raise SystemExit(f"cache_sim: no commit_rounds data at {path} "
                             f"(give the folder holding *.jsonl as an argument)")


RULE_TITLES = {
    "prefix": "provider rule: a breakpoint is cached when the prompt up to it has >= {min} tokens",
    "block": "per-block rule: a breakpoint is cached when its own block has >= {min} tokens",
}


def report(results: dict[str, dict[tuple[str, str], Tally]], min_tokens: int) -> None:
    names = list(dict.fromkeys(name for tallies in results.values() for _, name in tallies))
    for rule in ("prefix", "block"):
        print(RULE_TITLES[rule].format(min=min_tokens))
        print(f"{'repository':<20}{'policy':<12}{'prompt Mtok':>12}{'served %':>10}"
              f"{'written Mtok':>14}{'bp/req':>8}{'top chg %':>11}{'top size %':>12}"
              f"{'cost vs none':>14}")
        totals: dict[str, Tally] = {name: Tally() for name in names}
        for repo, tallies in results.items():
            base = tallies[(rule, "none")].cost
            for name in names:
                tally = tallies[(rule, name)]
                _row(repo, name, tally, base)
                total = totals[name]
                for attribute in ("prompt", "read", "written", "breakpoints", "requests",
                                  "top_changes", "top_tokens"):
                    setattr(total, attribute, getattr(total, attribute) + getattr(tally,
                                                                                  attribute))
        base = totals["none"].cost
        for name in names:
            _row("all", name, totals[name], base)
        print()


def _row(repo: str, name: str, tally: Tally, base: float) -> None:
    served = 100.0 * tally.read / tally.prompt if tally.prompt else 0.0
    print(f"{repo:<20}{name:<12}{tally.prompt / 1e6:>12.2f}{served:>10.1f}"
          f"{tally.written / 1e6:>14.2f}{tally.breakpoints / max(tally.requests, 1):>8.2f}"
          f"{100.0 * tally.top_changes / max(tally.requests, 1):>11.1f}"
          f"{100.0 * tally.top_tokens / max(tally.prompt, 1):>12.1f}"
          f"{tally.cost / base if base else 0.0:>14.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="*", help="commit_rounds folder(s) or .jsonl file(s); "
                        f"default {DEFAULT_DATA}")
    parser.add_argument("--min-cache-tokens", type=int, default=1024,
                        help="provider minimum cacheable size (default 1024)")
    parser.add_argument("--scales", default="",
                        help="sensitivity rows: ripple, fixed and gated with their thresholds "
                             "times each of these comma-separated factors, e.g. 0.5,2,4,8")
    options = parser.parse_args(argv)
    scales = [float(part) for part in options.scales.split(",") if part.strip()]
    results: dict[str, dict[tuple[str, str], Tally]] = {}
    rounds = 0
    for path in data_files(options.data):
        history = load_history(path)
        rounds += len(history.rounds)
        results[history.repo] = simulate(history, options.min_cache_tokens, scales)
    if not results:
        print("cache_sim: no *.jsonl files found", file=sys.stderr)
        return 1
    print(f"{rounds} rounds "
          f"(commits) over {len(results)} repositories; tokens = bytes / {CHARS_PER_TOKEN}; "
          f"cost = plain + {WRITE_COST} x written + {READ_COST} x read\n")
    report(results, options.min_cache_tokens)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
