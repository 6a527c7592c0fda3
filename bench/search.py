"""Search benchmark: the engine's index against ripgrep on the same trees, in the same run.

Corpora (every machine has them, nothing is downloaded):

* ``stdlib`` — ``sysconfig.get_paths()["stdlib"]`` without the packages installed
  into it (``site-packages/``);
* ``large`` — the whole Python installation, ``Path(sysconfig.get_paths()["purelib"]).parent``.

For each it prints: the cold index build (fresh index file, wall and CPU time,
indexed files and bytes), the index size relative to the corpus, the warm
literal search p50 over a fixed set of queries against ``rg -F -l`` as a ratio
(case-sensitive, and case-insensitive against ``rg -F -l -i``), whether the
file sets agree for every query, and the time to re-index one changed file.

ripgrep is given the same file set as the engine: hidden files included,
``.gitignore`` files honoured outside git repositories too, the engine's default
exclusions as ``--glob`` rules and its 16 MB size limit.

Usage: ``python bench/search.py [--corpus stdlib|large|PATH]... [--repeat N]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sari_core.engine import Workspace
from sari_core.engine.ignore import DEFAULT_EXCLUDED_DIRS
from sari_core.engine.textfile import MAX_INDEX_BYTES
from sari_core.models import SearchCall

QUERIES = [
    "def __init__(self", "import os", "raise ValueError", "self.assertEqual", "TODO",
    "class Meta", "return None", "async def", "subprocess.run", "json.dumps", "Exception",
    "BaseModel", "sqlite3.connect", "os.path.join", "__name__ == '__main__'",
    "logging.getLogger", "from typing import", "lru_cache", "zipfile", "DeprecationWarning",
    'encoding="utf-8"', "isinstance(value, str)", "def execute_read", "NotImplementedError",
]
STDLIB_EXCLUDE = ["site-packages/", "dist-packages/"]
TOUCH_FILE = "_sari_bench_touch.py"


@dataclass
class Corpus:
    name: str
    root: Path
    exclude: list[str]


def corpora(names: list[str]) -> list[Corpus]:
    out = []
    for name in names:
        if name == "stdlib":
            out.append(Corpus("stdlib", Path(sysconfig.get_paths()["stdlib"]).resolve(),
                              STDLIB_EXCLUDE))
        elif name == "large":
            out.append(Corpus("large", Path(sysconfig.get_paths()["purelib"]).parent.resolve(),
                              []))
        else:
            out.append(Corpus(Path(name).name, Path(name).resolve(), []))
    return out


def rg_command(corpus: Corpus, query: str, ignore_case: bool) -> list[str]:
    command = ["rg", "-F", "-l", "--hidden", "--no-require-git", "--no-ignore-dot",
               "--no-ignore-global", "--no-ignore-parent", "--no-messages",
               "--max-filesize", str(MAX_INDEX_BYTES)]
    if ignore_case:
        command.append("-i")
    for folder in sorted(DEFAULT_EXCLUDED_DIRS) + [p.rstrip("/") for p in corpus.exclude]:
        command += ["--glob", f"!{folder}/"]
    return [*command, "--", query, str(corpus.root)]


def run_rg(corpus: Corpus, query: str, ignore_case: bool) -> tuple[float, set[str]]:
    started = time.perf_counter()
    done = subprocess.run(rg_command(corpus, query, ignore_case), capture_output=True,
                          check=False)
    elapsed = time.perf_counter() - started
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    return elapsed, {os.path.relpath(line, corpus.root).replace(os.sep, "/") for line in lines}


def timed_search(engine: Workspace, query: str, case_sensitive: bool) -> float:
    started = time.perf_counter()
    engine.search(SearchCall(query=query, case_sensitive=case_sensitive))
    return time.perf_counter() - started


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def index_bytes(path: Path) -> int:
    return sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))


def bench(corpus: Corpus, repeat: int, scratch: Path) -> None:
    print(f"\n== {corpus.name}: {corpus.root}")
    index = scratch / f"{corpus.name}.sqlite"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    wall, cpu, child = time.perf_counter(), time.process_time(), children_cpu()
    engine = Workspace([corpus.root], index_path=index, watch=True, exclude=corpus.exclude)
    stats = engine.ensure_index(progress=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    child = children_cpu() - child
    engine.store.reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with engine.store.transaction() as conn:
        conn.execute("SELECT 1")
    size = index_bytes(index)
    corpus_bytes = sum(row.size for row in engine.store.text_files())
    print(f"cold build: {wall:.1f} s wall (CPU: {cpu:.1f} s main + {child:.1f} s workers; "
          f"load average {load:.1f} at start) — {stats.files:,} files, {stats.text_files:,} "
          f"text files, {corpus_bytes / 1e6:.1f} MB of text, "
          f"{engine.index_status()['symbols']:,} symbols")
    print(f"index size: {size / 1e6:.1f} MB = {size / corpus_bytes:.2f} x the text indexed")
    try:
        for case_sensitive in (True, False):
            compare(engine, corpus, repeat, case_sensitive)
        reindex(engine, corpus)
    finally:
        engine.close()


def compare(engine: Workspace, corpus: Corpus, repeat: int, case_sensitive: bool) -> None:
    label = "case-sensitive, rg -F -l" if case_sensitive else "case-insensitive, rg -F -l -i"
    print(f"\nwarm literal search ({label}), median of {repeat} runs per query:")
    print(f"{'query':<28}{'files':>7}{'sari ms':>10}{'rg ms':>10}{'ratio':>8}  agree")
    sari_times, rg_times, disagreements = [], [], 0
    for query in QUERIES:
        timed_search(engine, query, case_sensitive)  # warm-up: page cache and statements
        run_rg(corpus, query, not case_sensitive)
        ours = statistics.median(timed_search(engine, query, case_sensitive)
                                 for _ in range(repeat))
        runs = [run_rg(corpus, query, not case_sensitive) for _ in range(repeat)]
        theirs = statistics.median(elapsed for elapsed, _ in runs)
        expected = runs[0][1]
        found = set(engine.matching_files(SearchCall(query=query,
                                                     case_sensitive=case_sensitive)))
        agree = found == expected
        disagreements += not agree
        sari_times.append(ours)
        rg_times.append(theirs)
        note = "yes" if agree else (f"NO: {len(found - expected)} only sari, "
                                    f"{len(expected - found)} only rg, e.g. "
                                    f"{sorted(found ^ expected)[:2]}")
        print(f"{query[:27]:<28}{len(expected):>7}{ours * 1000:>10.2f}{theirs * 1000:>10.1f}"
              f"{theirs / ours:>8.0f}x  {note}")
    p50_ours, p50_theirs = statistics.median(sari_times), statistics.median(rg_times)
    print(f"p50: sari {p50_ours * 1000:.2f} ms, rg {p50_theirs * 1000:.1f} ms -> "
          f"{p50_theirs / p50_ours:.0f}x faster; max sari {max(sari_times) * 1000:.1f} ms; "
          f"file sets agree for {len(QUERIES) - disagreements}/{len(QUERIES)} queries")


def reindex(engine: Workspace, corpus: Corpus, rounds: int = 7) -> None:
    """Re-index one changed file: a copy of a median-sized source file, edited in place."""
    sources = sorted((row.size, row.path) for row in engine.store.text_files()
                     if row.path.endswith(".py"))
    size, model = sources[len(sources) // 2]
    target = corpus.root / TOUCH_FILE
    target.write_bytes((corpus.root / model).read_bytes())
    try:
        engine.poll_changes()
        idle = []
        for _ in range(200):
            started = time.perf_counter()
            engine.poll_changes()
            idle.append(time.perf_counter() - started)
        times = []
        for number in range(rounds):
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(f"# sari bench edit {number}\n")
            started = time.perf_counter()
            changes = engine.poll_changes()
            times.append(time.perf_counter() - started)
            assert [change.path for change in changes] == [TOUCH_FILE], changes
        found = engine.matching_files(SearchCall(query=f"sari bench edit {rounds - 1}"))
        assert found == [TOUCH_FILE], found
        print(f"\none-file re-index ({size / 1000:.1f} kB, a copy of {model}): "
              f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
              f"(detect + read + hash + FTS + symbols); an idle poll costs "
              f"{statistics.median(idle) * 1e6:.0f} µs")
    finally:
        target.unlink()
        engine.poll_changes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", default=None,
                        help="stdlib, large, or a folder (repeatable; default: stdlib and large)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query")
    args = parser.parse_args(argv)
    if shutil.which("rg") is None:
        print("ripgrep (rg) is needed: apt-get install -y ripgrep", file=sys.stderr)
        return 2
    version = subprocess.run(["rg", "--version"], capture_output=True, text=True).stdout
    print(f"python {sys.version.split()[0]}, {version.splitlines()[0]}, "
          f"{os.cpu_count()} cores, {len(QUERIES)} queries")
    with tempfile.TemporaryDirectory(prefix="sari-bench-") as scratch:
        for corpus in corpora(args.corpus or ["stdlib", "large"]):
            bench(corpus, args.repeat, Path(scratch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
