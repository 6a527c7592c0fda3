"""Cost of the kernel's hook pipeline for one read, with 0, 1 and 7 trivial plugins,
next to pluggy's own ``pm.hook.<name>()`` with the same trivial implementations.

The engine is an in-memory stub that returns a fixed 20-line result, so the figure is the
pipeline alone: session lookup, argument validation, on_read_enter / on_read_exit calls,
the verdict fold, metrics and response building. The "bare" row is the stub engine called
directly, the floor any pipeline sits on.

The peer, measured in the same run: a plain ``pluggy.PluginManager`` with Sari's hook specs
and the same trivial plugins, calling ``pm.hook.on_read_enter(...)`` and
``pm.hook.on_read_exit(...)`` — what dispatching the two hooks costs in pluggy itself. Sari's
per-plugin cost (the slope of a whole read over the plugin count) is printed as a ratio to
pluggy's per-implementation cost of the same two hooks (target: at most 1.5x).

    python bench/hook_overhead.py [--calls 20000] [--hook-calls 200] [--smoke]

(``--smoke``: 500 reads per row and 5 client-hook calls — checks the bench works, CI; its
figures are noise.)

Then the client hooks: the per-call wall and CPU of each way a coding client's hook reaches
Sari (Claude Code's ``mcp_tool`` and ``http`` hooks, Codex's command hook, the ``sari hook``
process), each beside a no-op hook of the same type (see ``bench/client_hooks.py``).

With sari-otel installed, a last block compares the bare kernel with the kernel plus
sari-otel dormant (no ``OTEL_*`` configured) and active (spans through the SDK's batch
processor into an in-memory exporter, metrics into an in-memory reader).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

os.environ.setdefault("SARI_STATE_DIR", tempfile.mkdtemp(prefix="sari-bench-"))

import pluggy  # noqa: E402
from stub_engine import StubEngine  # noqa: E402

from sari_core import Kernel, hookimpl  # noqa: E402
from sari_core.kernel import hookspecs  # noqa: E402
from sari_core.models import ReadCall  # noqa: E402

TEXT = "".join(f"line {i}\n" for i in range(1, 21))
COUNTS = (0, 1, 7)
BATCH = 100


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
    return measure_with([Trivial(i) for i in range(plugin_count)], calls, builtins=builtins)


def bare(calls: int) -> list[float]:
    engine = StubEngine(TEXT)
    call = ReadCall(mode="file", target="a.py")
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        engine.read(call)
        samples.append((time.perf_counter_ns() - start) / 1000.0)
    return samples


def dispatch(manager: pluggy.PluginManager, plugin_count: int, calls: int) -> float:
    """Median µs of one on_read_enter + one on_read_exit through ``manager.hook``."""
    for index in range(plugin_count):
        manager.register(Trivial(index), name=f"trivial-{index}")
    kernel = Kernel(StubEngine(TEXT), load_entry_points=False, builtins=False,
                    analytics_sinks=[])
    session = kernel.session("bench")
    call = ReadCall(mode="file", target="a.py")
    result = kernel.engine.read(call)
    enter, exit_ = callers(manager)
    samples = []
    clock = time.perf_counter_ns
    for _ in range(max(calls // BATCH, 50)):
        start = clock()
        for _ in range(BATCH):
            enter(call=call, session=session, ctx=None)
            exit_(call=call, result=result, session=session, ctx=None)
        samples.append((clock() - start) / 1000.0 / BATCH)
    kernel.close()
    return statistics.median(samples)


def callers(manager: pluggy.PluginManager) -> tuple[Callable[..., object], Callable[..., object]]:
    """The two hooks as the kernel calls them: Sari's isolated, canonically ordered
    ``call_each``, or pluggy's own ``pm.hook.<name>`` for the plain pluggy manager."""
    from sari_core.kernel.manager import SariPluginManager

    if isinstance(manager, SariPluginManager):
        sari = manager
        return (lambda **kw: sari.call_each("on_read_enter", **kw),
                lambda **kw: sari.call_each("on_read_exit", **kw))
    return manager.hook.on_read_enter, manager.hook.on_read_exit


def pluggy_manager() -> pluggy.PluginManager:
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    return manager


def sari_manager() -> pluggy.PluginManager:
    from sari_core.kernel.manager import SariPluginManager

    return SariPluginManager()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--hook-calls", type=int, default=200,
                        help="calls per client-hook row (0 leaves the client hooks out)")
    parser.add_argument("--smoke", action="store_true",
                        help="500 reads per row, 5 client-hook calls: checks the bench works")
    args = parser.parse_args()
    if args.smoke:
        args.calls = 500
        args.hook_calls = min(args.hook_calls, 5)
    print(f"python {sys.version.split()[0]}, pluggy {pluggy.__version__}, "
          f"{args.calls} reads per row")
    floor = statistics.median(bare(args.calls))
    print(f"{'configuration':<36}{'p50 µs':>10}{'p99 µs':>10}{'pipeline µs':>14}")
    print(f"{'engine stub alone':<36}{floor:>10.2f}")
    results = {}
    for builtins in (False, True):
        for count in COUNTS:
            samples = sorted(measure(count, args.calls, builtins))
            p50 = statistics.median(samples)
            p99 = samples[int(len(samples) * 0.99)]
            results[(builtins, count)] = p50
            label = f"{count} trivial plugins" + (" + built-in metrics" if builtins else "")
            print(f"{label:<36}{p50:>10.2f}{p99:>10.2f}{p50 - floor:>14.2f}")
    print()
    print("hook dispatch alone: one on_read_enter + one on_read_exit, median µs")
    peer = {count: dispatch(pluggy_manager(), count, args.calls) for count in COUNTS}
    ours = {count: dispatch(sari_manager(), count, args.calls) for count in COUNTS}
    print(f"{'plugins':<10}{'pluggy pm.hook':>16}{'Sari call_each':>16}")
    for count in COUNTS:
        print(f"{count:<10}{peer[count]:>16.3f}{ours[count]:>16.3f}")
    pluggy_slope = (peer[7] - peer[0]) / 7
    dispatch_slope = (ours[7] - ours[0]) / 7
    kernel_slope = (results[(False, 7)] - results[(False, 0)]) / 7
    print()
    print(f"pluggy's own cost per implementation (enter + exit): {pluggy_slope:.3f} µs")
    print(f"Sari's dispatch per plugin (enter + exit):           {dispatch_slope:.3f} µs "
          f"= {dispatch_slope / pluggy_slope:.2f}x pluggy's")
    print(f"Sari's whole-read cost per plugin (enter + exit):    {kernel_slope:.3f} µs "
          f"= {kernel_slope / pluggy_slope:.2f}x pluggy's (target: at most 1.5x)")
    added = results[(False, 7)] - results[(False, 0)]
    print(f"7 trivial plugins add {added:.2f} µs per read over the bare kernel pipeline "
          f"(target: under 10 µs)")
    otel_rows(args.calls, floor)
    if args.hook_calls:
        from client_hooks import print_client_hooks

        print()
        print_client_hooks(args.hook_calls)
    return 0


# --- telemetry: sari-otel's added cost per call (self-contained) ----------------------------


def measure_with(plugins: list[object], calls: int, builtins: bool = False) -> list[float]:
    """p50-ready samples of one read through a kernel with exactly ``plugins`` (built-ins
    only when asked)."""
    kernel = Kernel(StubEngine(TEXT), plugins=plugins, load_entry_points=False,
                    builtins=builtins, analytics_sinks=[])
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


def otel_rows(calls: int, floor: float) -> None:
    """Bare kernel, + sari-otel dormant, + sari-otel exporting to memory; skipped without it.

    Active, a call only queues its telemetry; the spans and metrics are built on the
    plugin's recording thread. "added" is the call's latency; "amortized" is the wall time
    of all calls plus the wait for the recording thread to finish, per call: the CPU the
    telemetry really costs when calls come back to back.
    """
    try:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from sari_otel import OtelPlugin
    except ImportError as exc:
        print(f"sari-otel rows skipped: {exc}")
        return
    tracer_provider = TracerProvider()
    exporter = InMemorySpanExporter()
    # Queue room for every span of the run: the figure is the cost, not the drop policy.
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=4 * calls))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    active = OtelPlugin(tracer_provider=tracer_provider, meter_provider=meter_provider,
                        queue_size=2 * calls)
    rows = {"bare kernel": [], "+ sari-otel dormant": [OtelPlugin(environ={})],
            "+ sari-otel to memory": [active]}
    print(f"{'telemetry':<30}{'p50 µs':>9}{'p99 µs':>9}{'added µs':>10}{'amortized µs':>14}")
    base = base_amortized = None
    for label, plugins in rows.items():
        started = time.perf_counter()
        samples = sorted(measure_with(plugins, calls))
        if plugins and plugins[0] is active:
            active.flush()
            tracer_provider.force_flush()
        amortized = (time.perf_counter() - started) * 1e6 / (calls + 500)
        p50 = statistics.median(samples)
        base = p50 if base is None else base
        base_amortized = amortized if base_amortized is None else base_amortized
        print(f"{label:<30}{p50:>9.2f}{samples[int(len(samples) * 0.99)]:>9.2f}"
              f"{p50 - base:>10.2f}{amortized - base_amortized:>14.2f}")
    exported = len(exporter.get_finished_spans())
    print(f"spans exported to memory: {exported} for {calls + 500} calls, "
          f"dropped calls: {active.thread.dropped} (engine stub alone: {floor:.2f} µs)")
    tracer_provider.shutdown()
    meter_provider.shutdown()


if __name__ == "__main__":
    raise SystemExit(main())
