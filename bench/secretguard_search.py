"""What secretguard adds to a search: the same kernel with and without it, in the same run.

secretguard leaves secret files out of ``total``; when a search matches more files than
it shows, that takes a second pass over the index's file set. This prints the warm
``search`` p50 over a fixed set of queries on the Python standard library (every machine
has it; nothing is downloaded), without the plugin and with it, and their ratio.

Usage: ``python bench/secretguard_search.py [--repeat N] [--smoke]`` (``--smoke``: the
stdlib's ``json`` and ``email`` packages only, one repetition — checks the bench works, CI)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from sari_core import Kernel
from sari_secretguard import SecretguardPlugin

QUERIES = ("import os", "def __init__", "return None", "TypeError", "self._lock", "encoding",
           "subprocess", "class Test", "raise ValueError", "lambda")


def _p50(kernel: Kernel, repeat: int) -> tuple[float, int]:
    timings: list[float] = []
    totals = 0
    for _ in range(repeat):
        for query in QUERIES:
            start = time.perf_counter()
            response = kernel.execute_search({"query": query, "limit": 10})
            timings.append(time.perf_counter() - start)
            totals += response["total"]
    return statistics.median(timings) * 1000, totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true",
                        help="two small stdlib packages and one repetition: checks the bench "
                             "works (CI)")
    args = parser.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    roots = [stdlib / "json", stdlib / "email"] if args.smoke else [stdlib]
    results: dict[str, tuple[float, int]] = {}
    # The project lies outside Sari's cache and state folder: Sari's tools never reach into
    # their own folders, so a project there would be left out by both arms.
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as scratch:
        if args.smoke:
            # A secret file that matches a query, so the smoke run shows it left out.
            args.repeat = 1
            roots.append(Path(scratch) / "project")
            roots[-1].mkdir()
            (roots[-1] / ".env").write_text("import os\nAPI_TOKEN=abc\n", encoding="utf-8")
        os.environ["SARI_CACHE_DIR"] = os.environ["SARI_STATE_DIR"] = cache
        for label, plugins in (("without", []), ("with", [SecretguardPlugin()])):
            # One kernel at a time over the same index file (built once, then reused).
            with Kernel(roots=roots, plugins=plugins, load_entry_points=False,
                        analytics_sinks=[]) as kernel:
                kernel.engine.wait_for_index(None)
                _p50(kernel, 1)  # warm
                results[label] = _p50(kernel, args.repeat)
    (without, total_without), (with_plugin, total_with) = results["without"], results["with"]
    print(f"corpus: {', '.join(map(str, roots))}")
    print(f"search p50 without secretguard: {without:.2f} ms")
    print(f"search p50 with secretguard:    {with_plugin:.2f} ms  "
          f"(ratio {with_plugin / without:.2f}x)")
    print(f"matching files summed over the queries: {total_without} without, "
          f"{total_with} with (the difference is secret files left out)")


if __name__ == "__main__":
    main()
