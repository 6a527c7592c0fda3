"""Cost of sari-persistence on the read path, its insert rate, and a team's load, per backend.

Both backends side by side: the embedded SQLite file and a PostgreSQL database (``--database-url``,
else a throwaway server started from the machine's PostgreSQL binaries; where there are none
the PostgreSQL rows say why).

Read path: the same reads through two kernels in one process — one without the plugin,
one recording every call into a fresh execution_log.db — interleaved in blocks so drift
hits both alike. Engines:

- ``stub``: returns a fixed 40-line result from memory, so the base is the kernel alone
  (the harshest ratio: any real read only dilutes it);
- ``disk``: reads the target file of the Python standard library from disk on every call
  and returns 40 lines of it — a floor for what a real engine's file read costs;
- ``sari``: the real engine (``sari_core.engine.Workspace`` over the standard library),
  when it is importable.

Two schedules: back to back (the writer thread competes with every read for the GIL:
the saturated worst case) and paced, with an idle gap between reads as a server has
between calls (the figure is then the cost on the call's own path).

Insert rate: CallRecords shaped like real read responses (about 2 KB each) submitted to an
ExecutionStore as fast as possible; the clock stops when the last one is committed.

Team load (bench/persistence_load.py): ``--servers`` processes x ``--sessions`` sessions making
calls back to back for ``--team-seconds``; throughput and p99 write latency (acknowledged to
committed), and the rows counted in the database against the records acknowledged.

Outage (PostgreSQL, a throwaway server of its own, stopped mid-run): how long
``context_query`` takes with the database up, and away (first call after it went, and the
next ones).

    python bench/persistence.py [--reads 20000] [--paced-reads 8000] [--gap-us 500]
                                [--inserts 100000] [--engines stub,disk,sari]
                                [--backends sqlite,postgresql] [--database-url URL]
                                [--servers 8] [--sessions 4] [--team-seconds 20]
                                [--parts read,inserts,team,outage] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SARI_STATE_DIR", tempfile.mkdtemp(prefix="sari-bench-"))

from stub_engine import StubEngine  # noqa: E402

from sari_core import Kernel  # noqa: E402
from sari_core.models import CallRecord, Location, ReadCall, ReadResult  # noqa: E402
from sari_persistence import ExecutionLog  # noqa: E402
from sari_persistence.plugin import PersistencePlugin  # noqa: E402
from sari_persistence.records import ExecutionRecord  # noqa: E402
from sari_persistence.settings import PersistenceSettings  # noqa: E402
from sari_persistence.store import open_store  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

TEXT = "".join(f"    value_{i} = compute(value_{i - 1}, factor={i})\n" for i in range(1, 41))
BLOCK = 250
STDLIB = Path(sysconfig.get_paths()["stdlib"])
TARGETS = sorted(str(p.relative_to(STDLIB)) for p in (STDLIB / "json").glob("*.py")) + \
    sorted(str(p.relative_to(STDLIB)) for p in (STDLIB / "email").glob("*.py"))[:12]


class DiskEngine(StubEngine):
    """Reads the file from disk on every call and returns 40 of its lines."""

    def __init__(self, root: Path) -> None:
        super().__init__("", root)

    def read(self, call: ReadCall) -> ReadResult:
        text = (self.roots[0] / call.target).read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        start = call.skipped_lines + 1
        end = min(len(lines), start + (call.limit or 40) - 1)
        return ReadResult(path=call.target, text="".join(lines[start - 1:end]),
                          start_line=start, end_line=end, total_lines=len(lines),
                          location=Location(file=call.target, line=start, end_line=end))


def real_engine() -> Any:
    from sari_core.engine import Workspace  # type: ignore[attr-defined]

    return Workspace([STDLIB])


ENGINES: dict[str, Callable[[], Any]] = {
    "stub": lambda: StubEngine(TEXT, STDLIB),
    "disk": lambda: DiskEngine(STDLIB),
    "sari": real_engine,
}


def read_block(kernel: Kernel, count: int, out: list[float], gap: float = 0.0) -> None:
    """``count`` reads back to back, or with ``gap`` seconds of idle time between them."""
    for number in range(count):
        args = {"mode": "file", "target": TARGETS[number % len(TARGETS)], "offset": 11,
                "limit": 40, "session_id": "bench"}
        started = time.perf_counter()
        kernel.execute_read(args)
        out.append((time.perf_counter() - started) * 1e6)
        if gap:
            time.sleep(gap)  # idle, as a server between calls: the writer may run


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def compare(make_engine: Callable[[], Any], reads: int, gap: float, where: dict[str, str]
            ) -> tuple[list[float], list[float], list[float], Any]:
    """Interleaved blocks of reads through a kernel without and one with the plugin."""
    bare = Kernel(make_engine(), load_entry_points=False, analytics_sinks=[])
    recording = Kernel(make_engine(), plugins=[PersistencePlugin()], load_entry_points=False,
                       analytics_sinks=[],
                       settings={"persistence": {**where, "install_sigterm_handler": False}})
    for kernel in (bare, recording):  # warm up caches, pydantic, the writer
        read_block(kernel, 300, [])
    without: list[float] = []
    with_plugin: list[float] = []
    pair_ratios: list[float] = []
    for block in range(max(1, reads // BLOCK)):
        first, second = (bare, recording) if block % 2 == 0 else (recording, bare)
        timings: dict[int, list[float]] = {id(bare): [], id(recording): []}
        read_block(first, BLOCK, timings[id(first)], gap)
        read_block(second, BLOCK, timings[id(second)], gap)
        without += timings[id(bare)]
        with_plugin += timings[id(recording)]
        # Adjacent blocks see the same machine: their ratio cancels load from elsewhere.
        pair_ratios.append(statistics.median(timings[id(recording)])
                           / statistics.median(timings[id(bare)]))
    log = ExecutionLog.of(recording)
    log.flush()
    stats = log.store.stats
    bare.close()
    recording.close()
    return without, with_plugin, pair_ratios, stats


def bench_read_path(engines: list[str], reads: int, paced_reads: int, gap_us: int,
                    backend: Backend) -> None:
    print(f"read path, {backend.name}: {len(TARGETS)} stdlib files, 40 lines per read")
    print("ratio: p50 with / p50 without; paired: median over adjacent block pairs of that "
          "ratio (robust to load from other processes)")
    print(f"{'engine':<7}{'schedule':<18}{'reads':>7}{'p50 without':>13}{'p50 with':>10}"
          f"{'ratio':>7}{'paired':>8}{'added':>9}{'p99 without':>13}{'p99 with':>10}"
          f"{'recorded':>10}{'dropped':>9}")
    schedules = [("back to back", reads, 0.0), (f"{gap_us} µs idle gaps", paced_reads,
                                               gap_us / 1e6)]
    for engine in engines:
        try:
            ENGINES[engine]()
        except ImportError as exc:
            print(f"{engine:<7}(not available: {exc})")
            continue
        for index, (name, count, gap) in enumerate(schedules):
            without, with_plugin, pairs, stats = compare(
                ENGINES[engine], count, gap, backend.fresh(f"read_{engine}_{index}"))
            p50_without, p50_with = statistics.median(without), statistics.median(with_plugin)
            paired = statistics.median(pairs)
            print(f"{engine:<7}{name:<18}{len(without):>7}{p50_without:>11.2f}µs"
                  f"{p50_with:>8.2f}µs{p50_with / p50_without:>7.3f}{paired:>8.3f}"
                  f"{100 * (paired - 1):>+8.1f}%"
                  f"{percentile(without, .99):>11.2f}µs{percentile(with_plugin, .99):>8.2f}µs"
                  f"{stats.committed:>10}{stats.dropped_full:>9}")


def call_record(number: int) -> CallRecord:
    response = {
        "ok": True, "mode": "file", "target": f"src/pkg/module_{number % 97}.py", "text": TEXT,
        "location": {"file": f"src/pkg/module_{number % 97}.py", "line": 1, "end_line": 40},
        "meta": {"truncated": False, "token_estimate": len(TEXT) // 4, "preview_degraded": False,
                 "execution_id": f"ex-bench-{number}",
                 "stabilization": {"budget_state": "ok", "suggested_next_action": None,
                                   "warnings": [], "reason_codes": [], "next_calls": [],
                                   "metrics_snapshot": {"reads_count": number}}},
    }
    return CallRecord(execution_id=f"ex-bench-{number}", tool="read",
                      session_key="ws:0123456789ab:sid:bench",
                      arguments={"mode": "file", "target": response["target"]}, ok=True,
                      target=response["target"], reason_codes=[], duration_ms=0.05,
                      timestamp=time.time(), response=response)


def bench_inserts(count: int, backend: Backend) -> None:
    records = [ExecutionRecord(call_record(n), "bench") for n in range(count)]
    where = backend.fresh("inserts")
    store = open_store(PersistenceSettings.model_validate({**where, "queue_size": count + 1}))
    started = time.perf_counter()
    for record in records:
        store.submit(record)
    submitted = time.perf_counter() - started
    store.flush(timeout=600)
    elapsed = time.perf_counter() - started
    stats = store.stats
    store.close()
    size = backend.size(where)
    print(f"sustained inserts, {backend.name}: {stats.committed} executions (~{len(str(records[0].record.response))}"
          f" B response each) in {elapsed:.2f} s = {stats.committed / elapsed:,.0f} records/s "
          f"({stats.batches} transactions, mean batch {stats.committed / max(1, stats.batches):.0f})")
    print(f"enqueue cost on the caller's side: {1e6 * submitted / count:.2f} µs per record; "
          f"database {size / 1e6:.1f} MB ({size / max(1, stats.committed):.0f} B per execution)")


class Backend:
    """Where a bench writes: fresh SQLite files in a folder, or fresh PostgreSQL databases."""

    def __init__(self, name: str, folder: Path, server: Any = None, url: str | None = None):
        self.name, self.folder, self.server, self.url = name, folder, server, url

    def fresh(self, label: str) -> dict[str, str]:
        if self.name == "sqlite":
            return {"db_path": str(self.folder / f"{label}.db")}
        if self.server is not None:
            return {"database_url": self.server.create_database()}
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:  # a schema of its own
            schema = f"bench_{label}_{time.time_ns()}"
            conn.execute(f'CREATE SCHEMA "{schema}"')
        joiner = "&" if "?" in str(self.url) else "?"
        return {"database_url": f"{self.url}{joiner}options=-csearch_path%3D{schema}"}

    def target(self, where: dict[str, str]) -> str:
        return where.get("database_url") or where["db_path"]

    def size(self, where: dict[str, str]) -> int:
        if self.name == "sqlite":
            return Path(where["db_path"]).stat().st_size
        import psycopg

        with psycopg.connect(where["database_url"]) as conn:
            return int(conn.execute("SELECT pg_total_relation_size('executions')").fetchone()[0])


def postgres_backend(url: str | None, folder: Path) -> tuple[Backend | None, str | None]:
    """A PostgreSQL backend, or why there is none here."""
    if url:
        return Backend("postgresql", folder, url=url), None
    from postgres_server import PostgresServer, unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        return None, reason
    # fsync on: a commit costs what it costs on a real server.
    return Backend("postgresql", folder, server=PostgresServer(fsync=True)), None


def bench_team(backend: Backend, servers: int, sessions: int, seconds: float,
               gap_ms: float) -> dict[str, Any]:
    from persistence_load import team_load

    where = backend.fresh(f"team_{int(gap_ms)}")
    result = team_load(backend.target(where), servers, sessions, seconds, gap_ms, backend.folder)
    pace = f"{gap_ms:g} ms between a session's calls" if gap_ms else "calls back to back"
    print(f"team load, {backend.name}: {servers} servers x {sessions} sessions, {pace}, "
          f"for {seconds:g} s: "
          f"{result['calls']:,} calls, all written in {result['elapsed']:.1f} s = "
          f"{result['throughput']:,.0f} records/s, "
          f"write latency p50 {result['p50_ms']:.1f} ms p99 {result['p99_ms']:.1f} ms; "
          f"acknowledged {result['acknowledged']:,}, counted in the database "
          f"{result['counted']:,}, lost {result['lost']} (of which the servers reported: failed "
          f"{result['failed']}, lost at close {result['reported_lost']}; not acknowledged: "
          f"dropped {result['dropped']} with the queue full)")
    return result


def bench_outage(reads: int) -> None:
    """context_query with the database up (the peer), then away: how long each answer takes.

    A server of its own (it is stopped): the first call after it went meets the outage, the
    next ones know of it. The connect timeout is the default (5 s): an answer that waited
    for the database would take that long.
    """
    from postgres_server import PostgresServer

    server = PostgresServer()
    kernel = None
    try:
        settings = PersistenceSettings()
        kernel = Kernel(StubEngine(TEXT, STDLIB), plugins=[PersistencePlugin()], load_entry_points=False,
                        analytics_sinks=[],
                        settings={"persistence": {"database_url": server.create_database(),
                                                  "install_sigterm_handler": False}})
        for number in range(reads):
            kernel.execute_read({"mode": "file", "target": f"f{number}.py", "session_id": "s"})

        def timed() -> tuple[float, bool]:
            started = time.perf_counter()
            response = kernel.execute_tool("context_query", {"session_id": "s"})
            return time.perf_counter() - started, bool(response["ok"])

        up = [timed() for _ in range(5)]
        server.stop()
        away = [timed() for _ in range(5)]
        server.start()
        up_ms = statistics.median(seconds for seconds, _ in up) * 1000
        first_ms = away[0][0] * 1000
        later_ms = statistics.median(seconds for seconds, _ in away[1:]) * 1000
        refused = sum(not ok for _, ok in away)
        print(f"context_query during an outage, postgresql ({reads} executions in the session, "
              f"connect timeout {settings.connect_timeout_seconds:g} s): database up "
              f"{up_ms:.1f} ms (median of 5, answered); away: first call {first_ms:.1f} ms, "
              f"next calls {later_ms:.1f} ms (median of 4); {refused}/5 answered "
              f"EXECUTION_LOG_UNAVAILABLE; away/up {later_ms / up_ms:.2f}x")
    finally:
        if kernel is not None:
            kernel.close()
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument("--paced-reads", type=int, default=8000)
    parser.add_argument("--gap-us", type=int, default=500, help="idle time between paced reads")
    parser.add_argument("--inserts", type=int, default=100000)
    parser.add_argument("--engines", default="stub,disk,sari")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--database-url", help="an existing PostgreSQL database to write into "
                        "(a schema of its own per run); default: a throwaway local server")
    parser.add_argument("--servers", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--team-seconds", type=float, default=20.0)
    parser.add_argument("--gaps-ms", default="0,10", help="pauses between a session's calls "
                        "in the team load, one run each (0: back to back, the saturated case)")
    parser.add_argument("--parts", default="read,inserts,team,outage",
                        help="what to measure (outage: PostgreSQL from a throwaway server only)")
    parser.add_argument("--smoke", action="store_true", help="a few seconds: CI checks it runs")
    args = parser.parse_args()
    if args.smoke:
        args.reads, args.paced_reads, args.inserts = 500, 250, 2000
        args.engines, args.servers, args.sessions, args.team_seconds = "stub", 2, 2, 1.0
    print(f"python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="sari-bench-persistence-") as folder:
        for name in args.backends.split(","):
            backend: Backend | None = Backend("sqlite", Path(folder))
            if name == "postgresql":
                backend, reason = postgres_backend(args.database_url, Path(folder))
                if backend is None:
                    print(f"postgresql: not measured: {reason}")
                    continue
            assert backend is not None
            parts = args.parts.split(",")
            try:
                if "read" in parts:
                    bench_read_path(args.engines.split(","), args.reads, args.paced_reads,
                                    args.gap_us, backend)
                if "inserts" in parts:
                    bench_inserts(args.inserts, backend)
                for gap in args.gaps_ms.split(",") if "team" in parts else ():
                    bench_team(backend, args.servers, args.sessions, args.team_seconds,
                               float(gap))
                # Only with a throwaway server: it is stopped.
                if "outage" in parts and backend.server is not None:
                    bench_outage(20 if args.smoke else 200)
            finally:
                if backend.server is not None:
                    backend.server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
