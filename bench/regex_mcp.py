"""Regex search over MCP, as an agent calls it, beside ripgrep in the same run.

One ``sari serve`` over stdio (the official SDK's client), its index built first; each
pattern is sent as ``tools/call search {"query": P, "kind": "regex"}`` and timed from the
call to its reply, alternating with ``rg -l -i -e P`` spawned over the same tree (the
cheapest form of ripgrep's answer: file names only), round after round. The patterns are
those of ``bench/regex_search.py``, patterns with many matches, and patterns with no
literal the index could narrow. It prints p50 and p95 of each side and their ratios, per
pattern and over all calls; the targets are Sari <= 1.0x ripgrep at p50 and <= 1.5x at
p95 (wall-clock: run it on a quiet machine, or judge the ratios, both sides sharing the
load)::

    python bench/regex_mcp.py [--corpus PATH] [--rounds 5] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from regex_search import PATTERNS, smoke_corpus  # noqa: E402
from search import percentile, rg_files  # noqa: E402

MANY_MATCHES = [r"self\.\w+", r"import \w+", r"def \w+\(", r"raise \w+Error\(",
                r"\bself\.\w+ = None"]
NO_LITERAL = [r"[A-Z]{4,}_[A-Z]{4,} = ", r"^\s+\w+ = \w+$", r"\d+\.\d+"]
TARGET_P50, TARGET_P95 = 1.0, 1.5


def serve_and_time(root: Path, env: dict[str, str], patterns: list[str], rounds: int
                   ) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, int]]:
    """(Sari's seconds per pattern, rg's seconds per pattern, Sari's file total per pattern)."""
    import anyio
    import jsonschema.validators  # noqa: F401 - the client's validator, loaded before timing
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "sari_core.cli.main", "serve", "--workspace", str(root)], env=env,
        cwd=env["SARI_CACHE_DIR"])
    ours: dict[str, list[float]] = {pattern: [] for pattern in patterns}
    theirs: dict[str, list[float]] = {pattern: [] for pattern in patterns}
    totals: dict[str, int] = {}

    async def run() -> None:
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await client.list_tools()
                for pattern in patterns:  # untimed: the index is open and warm
                    await client.call_tool("search", {"query": pattern, "kind": "regex"})
                for _ in range(rounds):
                    for pattern in patterns:
                        started = time.perf_counter()
                        result = await client.call_tool("search", {"query": pattern,
                                                                   "kind": "regex"})
                        ours[pattern].append(time.perf_counter() - started)
                        answer = result.structured_content or {}
                        totals[pattern] = int(answer.get("total", -1))
                        theirs[pattern].append(rg_files(root, pattern, regex=True)[0])

    anyio.run(run)
    return ours, theirs, totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="a tiny corpus, one round (CI)")
    args = parser.parse_args(argv)
    patterns = [*PATTERNS, *MANY_MATCHES, *NO_LITERAL]
    with tempfile.TemporaryDirectory(prefix="sari-bench-regex-mcp-") as scratch:
        root = smoke_corpus(Path(scratch) / "corpus") if args.smoke else args.corpus.resolve()
        rounds = 1 if args.smoke else args.rounds
        env = {**os.environ, "SARI_CACHE_DIR": str(Path(scratch) / "cache"),
               "SARI_PLUGINS": "none"}
        Path(env["SARI_CACHE_DIR"]).mkdir()
        subprocess.run([sys.executable, "-m", "sari_core.cli.main", "index", str(root)],
                       env=env, stdout=subprocess.DEVNULL, check=True)
        ours, theirs, totals = serve_and_time(root, env, patterns, rounds)
    print(f"corpus {root}, {rounds} round(s); ms, call to reply (Sari over MCP) and spawn to "
          "exit (rg -l)")
    print(f"{'pattern':<30}{'files':>7}{'sari p50':>10}{'rg p50':>9}{'ratio':>7}"
          f"{'sari p95':>10}{'rg p95':>9}{'ratio':>7}")
    over = []
    for pattern in patterns:
        ours50, rg50 = statistics.median(ours[pattern]), statistics.median(theirs[pattern])
        ours95, rg95 = percentile(ours[pattern], 0.95), percentile(theirs[pattern], 0.95)
        print(f"{pattern:<30}{totals[pattern]:>7}{ours50 * 1000:>10.1f}{rg50 * 1000:>9.1f}"
              f"{ours50 / rg50:>6.2f}x{ours95 * 1000:>10.1f}{rg95 * 1000:>9.1f}"
              f"{ours95 / rg95:>6.2f}x")
        if ours50 / rg50 > TARGET_P50 or ours95 / rg95 > TARGET_P95:
            over.append(pattern)
    every_ours = [value for values in ours.values() for value in values]
    every_rg = [value for values in theirs.values() for value in values]
    p50 = statistics.median(every_ours) / statistics.median(every_rg)
    p95 = percentile(every_ours, 0.95) / percentile(every_rg, 0.95)
    print(f"all patterns: sari p50 {statistics.median(every_ours) * 1000:.1f} ms, p95 "
          f"{percentile(every_ours, 0.95) * 1000:.1f} ms; rg p50 "
          f"{statistics.median(every_rg) * 1000:.1f} ms, p95 "
          f"{percentile(every_rg, 0.95) * 1000:.1f} ms")
    print(f"targets: p50 {p50:.2f}x rg (<= {TARGET_P50:g}: {'met' if p50 <= TARGET_P50 else 'NOT met'}); "
          f"p95 {p95:.2f}x rg (<= {TARGET_P95:g}: {'met' if p95 <= TARGET_P95 else 'NOT met'})")
    print(f"per pattern: {len(patterns) - len(over)} of {len(patterns)} within both targets"
          + (f"; not: {', '.join(over)}" if over else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
