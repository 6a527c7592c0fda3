"""Symbol search's CPU per call, names nothing defines included, with and without the
trigram index narrowing the fallback to resembling names, in the same run.

The corpus (default: the standard library) is indexed once; each query of
``bench/search.py``'s symbol list is searched ``--repeat`` times on each side, alternating,
and the searching thread's CPU time is taken (load does not stretch it). "whole scan" is
the fallback reading every definition's name (as before the narrowing). Target: p95 <= 50 ms
of CPU::

    python bench/symbol_cpu.py [--corpus PATH] [--index PATH] [--repeat 7] [--smoke]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search import SYMBOLS, percentile  # noqa: E402

from sari_core.engine import Workspace  # noqa: E402
from sari_core.engine.search import symbol_search  # noqa: E402
from sari_core.models import SearchCall  # noqa: E402

TARGET_P95_MS = 50.0


def thread_cpu(function: object) -> float:
    started = time.thread_time()
    function()  # type: ignore[operator]
    return time.thread_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--index", type=Path, help="an index of the corpus to reuse")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="a tiny corpus, one repetition")
    args = parser.parse_args(argv)
    narrowing = symbol_search.files_holding
    with tempfile.TemporaryDirectory(prefix="sari-bench-symbol-cpu-") as scratch:
        root = args.corpus.resolve()
        repeat = args.repeat
        if args.smoke:
            root, repeat = Path(scratch) / "tree", 1
            root.mkdir()
            (root / "parser.py").write_text("class Parser:\n    def parse(self):\n        pass\n")
        index = args.index or Path(scratch) / "index.sqlite"
        samples: dict[str, dict[str, list[float]]] = {"narrowed": {}, "whole scan": {}}
        with Workspace([root], index_path=index, watch=True) as engine:  # as a server runs
            engine.ensure_index(progress=False)
            for query in SYMBOLS:
                call = SearchCall(query=query, kind="symbol")
                engine.search(call)  # warm
                for _ in range(repeat):
                    for side in samples:
                        symbol_search.files_holding = narrowing if side == "narrowed" \
                            else (lambda store, name: None)
                        samples[side].setdefault(query, []).append(
                            thread_cpu(lambda call=call: engine.search(call)))
            symbol_search.files_holding = narrowing
            symbols = engine.store.count_symbols()
    print(f"corpus {root} ({symbols:,} symbols), {repeat} repetition(s); thread CPU ms")
    print(f"{'query':<28}{'narrowed p50':>14}{'whole scan p50':>16}")
    for query in SYMBOLS:
        print(f"{query:<28}{statistics.median(samples['narrowed'][query]) * 1000:>14.1f}"
              f"{statistics.median(samples['whole scan'][query]) * 1000:>16.1f}")
    for side, by_query in samples.items():
        every = [value for values in by_query.values() for value in values]
        p95 = percentile(every, 0.95) * 1000
        verdict = "met" if p95 <= TARGET_P95_MS else "NOT met"
        print(f"{side}: p50 {statistics.median(every) * 1000:.1f} ms, p95 {p95:.1f} ms "
              f"(target p95 <= {TARGET_P95_MS:g} ms: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
