"""Cost of the kernel's hook pipeline for one read, with 0, 1 and 7 trivial plugins.

The engine is an in-memory stub that returns a fixed 20-line result, so the figure is the
pipeline alone: session lookup, argument validation, on_read_enter / on_read_exit calls,
the verdict fold, metrics and response building. The "bare" row is the stub engine called
directly, the floor any pipeline sits on.

    python bench/hook_overhead.py [--calls 20000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("SARI_STATE_DIR", tempfile.mkdtemp(prefix="sari-bench-"))

from stub_engine import StubEngine  # noqa: E402

from sari_core import Kernel, hookimpl  # noqa: E402
from sari_core.models import ReadCall  # noqa: E402

TEXT = "".join(f"line {i}\n" for i in range(1, 21))


class Trivial:
    def __init__(self, index: int) -> None:
        self.name = f"trivial-{index}"

    @hookimpl
    def on_read_enter(self, call, session):
        return None

    @hookimpl
    def on_read_exit(self, call, result, session):
        return None


def measure(plugin_count: int, calls: int, builtins: bool) -> list[float]:
    kernel = Kernel(StubEngine(TEXT), plugins=[Trivial(i) for i in range(plugin_count)],
                    load_entry_points=False, builtins=builtins, analytics_sinks=[])
    args = {"mode": "file", "target": "a.py", "session_id": "bench"}
    for _ in range(500):
        kernel.execute_read(args)
    samples = []
    clock = time.perf_counter_ns
    for _ in range(calls):
        start = clock()
        kernel.execute_read(args)
        samples.append((clock() - start) / 1000.0)
    kernel.close()
    return samples


def bare(calls: int) -> list[float]:
    engine = StubEngine(TEXT)
    call = ReadCall(mode="file", target="a.py")
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        engine.read(call)
        samples.append((time.perf_counter_ns() - start) / 1000.0)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {args.calls} reads per row")
    floor = statistics.median(bare(args.calls))
    print(f"{'configuration':<36}{'p50 µs':>10}{'p99 µs':>10}{'pipeline µs':>14}")
    print(f"{'engine stub alone':<36}{floor:>10.2f}")
    results = {}
    for builtins in (False, True):
        for count in (0, 1, 7):
            samples = sorted(measure(count, args.calls, builtins))
            p50 = statistics.median(samples)
            p99 = samples[int(len(samples) * 0.99)]
            results[(builtins, count)] = p50
            label = f"{count} trivial plugins" + (" + built-in metrics" if builtins else "")
            print(f"{label:<36}{p50:>10.2f}{p99:>10.2f}{p50 - floor:>14.2f}")
    slope = (results[(False, 7)] - results[(False, 0)]) / 7
    print(f"per-plugin slope (p50): {slope:.3f} µs per trivial plugin (enter + exit)")
    added = results[(False, 7)] - results[(False, 0)]
    print(f"7 trivial plugins add {added:.2f} µs per read over the bare kernel pipeline "
          f"(target: under 10 µs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
