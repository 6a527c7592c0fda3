"""Which regex searches the index should answer, and which ripgrep: both paths, same run.

A regex with a literal every match requires can be answered from the index (the files
holding that literal's trigrams, each checked by RE2) or by ``rg -l`` over the tree, then
ranked the same way. For each pattern this prints the engine's time by each path, beside
``rg -l`` alone, alternating the three, and the share of files the literal selects. The
held-out patterns were written down before this bench first ran; the judged figure is
theirs.

Usage: ``python bench/regex_routing.py --corpus PATH [--index PATH] [--repeat N] [--smoke]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from search import REGEXES, rg_files, smoke_corpus

from sari_core.engine import Workspace
from sari_core.engine.scan import regex_routing
from sari_core.engine.search.regex_plan import candidate_query
from sari_core.models import SearchCall

HELD_OUT = [r"except \w+Error as \w+:", r"self\.\w+ = None$", r"return \[\w+ for \w+ in",
            r"@(staticmethod|classmethod)$", r"if __name__ == .__main__.:", r"print\(f\"",
            r"\bdef test_\w+\(", r"warnings\.warn\(", r"from \.\w+ import \w+$",
            r"raise NotImplementedError\(\)"]


def timed(function: object) -> float:
    started = time.perf_counter()
    function()  # type: ignore[operator]
    return time.perf_counter() - started


def route(engine: Workspace, root: Path, pattern: str, repeat: int) -> dict[str, float]:
    call = SearchCall(query=pattern, kind="regex")
    samples: dict[str, list[float]] = {"index": [], "rg route": [], "rg": []}
    chosen = regex_routing.goes_to_ripgrep
    try:
        for _ in range(repeat):
            for path, to_rg in (("index", False), ("rg route", True)):
                regex_routing.goes_to_ripgrep = lambda searcher, call, to_rg=to_rg: to_rg
                engine.search(call)  # warm
                samples[path].append(timed(lambda: engine.search(call)))
            samples["rg"].append(rg_files(root, pattern, regex=True)[0])
    finally:
        regex_routing.goes_to_ripgrep = chosen
    return {name: statistics.median(values) * 1000 for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny corpus, one run per pattern: checks the bench works (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.corpus, args.repeat = smoke_corpus(Path(tempfile.mkdtemp()) / "smoke"), 1
    elif args.corpus is None:
        parser.error("--corpus is required (or --smoke)")
    index = args.index or Path(tempfile.mkdtemp()) / "index.sqlite"
    with Workspace([args.corpus], index_path=index, watch=True) as engine:
        engine.ensure_index(progress=False)
        files = max(engine.store.count_files()[1], 1)
        for label, patterns in (("tuning", REGEXES), ("held-out", HELD_OUT)):
            wins = 0
            literal = 0
            for pattern in patterns:
                query = candidate_query(pattern)
                if query is None:
                    print(f"{label:8} {pattern!r:34} no required literal: rg")
                    continue
                literal += 1
                share = engine.store.count_match(query) / files
                times = route(engine, args.corpus, pattern, args.repeat)
                wins += times["index"] <= times["rg route"]
                print(f"{label:8} {pattern!r:34} candidates {share:5.0%} | index "
                      f"{times['index']:7.1f} ms | rg route {times['rg route']:7.1f} ms | "
                      f"rg -l {times['rg']:7.1f} ms", flush=True)
            print(f"{label}: the index path was at least as fast for {wins} of {literal} "
                  "patterns with a required literal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
