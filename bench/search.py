"""Search benchmark: the engine against ripgrep and ``git grep`` on the same trees, same run.

The corpus is built at bench time from wheels downloaded from PyPI (``pip download
--no-deps``, unpacked; nothing outside this repository and the package index is
used), or given as a folder. It is measured at 1x, 2x and 4x its size (copies made
of hard links), so how each cost grows shows. For each size it prints:

* the first answer on the never-indexed tree, from the CLI (``sari search``) and over
  MCP (``sari serve``: spawn to the search reply, and the first ``tools/call`` to its
  reply), beside ``rg`` and ``git grep`` on the same query, and whether the answer holds
  the files rg finds (see ``first_answer.py``; the median of ``--repeat`` rounds);
* the cold build in a fresh process: its first phase (every kind of search answers
  from the index) and the complete build: wall, CPU (main + workers), MB of text per
  CPU-second, index size over the text, peak RSS (the main process and its workers together, sampled);
* each navigation query's median time over the stored references (callers and
  implementations of a common, a middling and a rare name; a prefix), with its answer's
  digest, which a change of how references are stored must leave as it was;
* warm p50 and p95 of literal, regex and symbol searches, beside ``rg`` and
  ``git grep --no-index`` on the same queries (the symbol search beside
  ``rg 'def NAME|class NAME'``), in wall-clock time and in the searching thread's CPU
  time (which other processes on a loaded machine do not inflate: judge ratios by it);
* every target, met or NOT met;
* with ``--parse on-demand``, the same cold build parsing on demand (its second phase
  cuts word chunks along the definition lines; a file is parsed by the first query needing
  its references), and each navigation query's first call on a fresh copy of each index:
  what the on-demand build moves from the build to the first navigation over a name, and
  whether the answers are the eager build's.

ripgrep gets the engine's file set: hidden files, ``.gitignore`` outside git repositories
too, the default exclusions as globs, the 16 MB size limit.

Usage: ``python bench/search.py [--packages NAME...] [--corpus PATH] [--scales 1 2 4]
[--repeat N] [--smoke] [--first-only] [--no-bytecode] [--parse eager|on-demand]``
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from first_answer import first_answers

from sari_core.engine import Workspace
from sari_core.engine.files.ignore import DEFAULT_EXCLUDED_DIRS
from sari_core.engine.files.textfile import MAX_INDEX_BYTES
from sari_core.engine.scan.scan import ripgrep
from sari_core.models import SearchCall

PACKAGES = ["sympy==1.13.3", "moto==5.0.22", "jedi==0.19.2", "scipy==1.14.1", "pip==24.3.1"]
LITERALS = [
    "def __init__(self", "import os", "raise ValueError", "self.assertEqual", "TODO",
    "class Meta", "return None", "async def", "subprocess.run", "json.dumps", "Exception",
    "sqlite3.connect", "os.path.join", "__name__ == '__main__'", "logging.getLogger",
    "from typing import", "lru_cache", "DeprecationWarning", 'encoding="utf-8"',
    "isinstance(value, str)", "NotImplementedError",
]
REGEXES = [r"def \w+_\w+\(self", r"^class \w+\(Exception\)", r"import (os|sys)$",
           r"\d{4}-\d{2}-\d{2}", r"raise \w+Error\(f?\"", r"[A-Z]{3,}_[A-Z]{3,}"]
SYMBOLS = ["parse", "Parser", "get_version", "Symbol", "main", "TestCase", "run",
           "normalize", "Session", "Matrix",
           # names nothing defines: the search falls back to resembling names
           "FrobnicatedHandlerFactory", "frobnicate_widget"]
# Navigation over the stored references (callers and implementations read them; a
# prefix query lists the names used): a common name, a middling one, a rare one.
NAVIGATION = [("callers", "get", None), ("callers", "name", None), ("callers", "parse_expr", None),
              ("implementations", "Basic", None), ("implementations", "Printer", None),
              ("callers", "get_", "prefix")]
SMOKE_FILES = {
    "pkg/reader.py": "import os\n\n\nclass Parser:\n    def execute_read(self, path):\n"
                     "        return os.path.join(path, '2024-01-31')\n",
    "pkg/use.py": "from pkg.reader import Parser\n\n\ndef main():\n    Parser().execute_read('x')\n"
                  "    raise ValueError('TODO')\n",
    "pkg/.gitignore": "ignored.py\n",
    "pkg/ignored.py": "def execute_read(): pass\n",
}
TARGETS = {"first answer / rg": 1.5, "symbol p50 ms": 10.0, "symbol CPU p95 ms": 50.0, "literal p95 / p50": 5.0,
           "literal CPU p95 / p50": 5.0,
           "regex p50 / rg p50": 1.0, "first phase MB per CPU-s": 6.0,
           "build MB per CPU-s": 3.0, "index / text": 1.0,
           "peak RSS MB": 250.0}


# --- corpora -----------------------------------------------------------------------------

def download_corpus(packages: list[str], cache: Path) -> Path:
    """The wheels of ``packages`` unpacked under ``cache/corpus`` (downloaded once)."""
    corpus = cache / "corpus"
    wheels = cache / "wheels"
    if not corpus.is_dir():
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary",
                        ":all:", "-q", "-d", str(wheels), *packages], check=True)
        staging = cache / "corpus.partial"
        shutil.rmtree(staging, ignore_errors=True)
        for wheel in sorted(wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(staging / wheel.name.split("-")[0])
        staging.rename(corpus)
    return corpus


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """``--packages``, ``--corpus`` and ``--cache``: the tree the engine benches read."""
    parser.add_argument("--packages", nargs="+", default=PACKAGES,
                        help="wheels the corpus is made of (downloaded from PyPI once)")
    parser.add_argument("--corpus", type=Path, help="a folder to use instead of the wheels")
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "sari-bench-corpus")


def corpus_of(args: argparse.Namespace) -> Path:
    """The folder ``--corpus`` names, else the ``--packages`` wheels unpacked in ``--cache``."""
    if args.corpus is not None:
        return args.corpus.resolve()
    return download_corpus(args.packages, args.cache / "-".join(sorted(args.packages)))


def smoke_corpus(folder: Path) -> Path:
    for rel, text in SMOKE_FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def scaled(base: Path, scale: int, scratch: Path) -> Path:
    """``scale`` copies of ``base`` side by side (hard links: no extra disk, same bytes)."""
    target = scratch / f"corpus-{scale}x"
    if not target.exists():
        for copy in range(scale):
            shutil.copytree(base, target / f"copy{copy}", copy_function=os.link)
    return target


# --- the peers ---------------------------------------------------------------------------

def rg_base() -> list[str]:
    binary = ripgrep()
    if binary is None:
        raise SystemExit("rg is needed (pip install ripgrep)")
    command = [binary, "--no-config", "--hidden", "--no-require-git", "--no-ignore-dot",
               "--no-ignore-global", "--no-ignore-parent", "--no-messages",
               "--max-filesize", str(MAX_INDEX_BYTES)]
    for folder in sorted(DEFAULT_EXCLUDED_DIRS):
        command += ["--glob", f"!{folder}/"]
    return command


def rg_files(root: Path, pattern: str, *, regex: bool, ignore_case: bool = True
             ) -> tuple[float, set[str]]:
    command = [*rg_base(), "-l", *([] if regex else ["-F"]), *(["-i"] if ignore_case else []),
               "-e", pattern, "--", str(root)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    return elapsed, {os.path.relpath(line, root).replace(os.sep, "/") for line in lines}


def git_grep(root: Path, pattern: str, *, regex: bool, ignore_case: bool = True) -> float:
    command = ["git", "-C", str(root), "grep", "--no-index", "--exclude-standard", "-l", "-I",
               "-E" if regex else "-F", *(["-i"] if ignore_case else []), "-e", pattern]
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - started


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


# --- the cold build ----------------------------------------------------------------------

BUILD = """
import glob, json, os, resource, sys, threading, time
from pathlib import Path
from sari_core.engine import Workspace
wall, cpu = time.perf_counter(), time.process_time()
def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0
def children():
    pids = []
    for path in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        with open(path) as listed:
            pids += listed.read().split()
    return pids
together = [0]  # the process and its workers, summed, sampled every 20 ms (Linux)
def sample():
    while True:
        together[0] = max(together[0], rss_kb(os.getpid()) + sum(map(rss_kb, children())))
        time.sleep(0.02)
if os.path.exists("/proc/self/status"):
    threading.Thread(target=sample, daemon=True).start()
def peak_kb():
    return max(together[0], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
def workers_cpu():
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime
with Workspace([sys.argv[1]], index_path=Path(sys.argv[2]), watch=False) as ws:
    stats = ws.ensure_index(progress=False, complete=False)  # every kind answers from here
    first = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
             "workers": workers_cpu(), "peak_kb": peak_kb()}
    ws.complete_index()  # tree-sitter's symbols and the word index
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = peak_kb()  # the build's; the counting below maps the index into this process
    symbols = ws.store.count_symbols()
    text = sum(row.size for row in ws.store.text_files())
    ws.store.reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
print(json.dumps({"wall": wall, "cpu": cpu, "workers": workers_cpu(), "first": first,
                  "files": stats.files, "text": text, "symbols": symbols, "peak_kb": peak,
                  "counted_peak_kb": peak_kb()}))
"""


def cold_build(root: Path, index: Path, parse: str = "eager") -> dict[str, float]:
    """The cold build in a fresh process (``SARI_PARSE=parse``): its figures, printed."""
    env = {**os.environ, "SARI_PARSE": parse}
    done = subprocess.run([sys.executable, "-c", BUILD, str(root), str(index)],
                          capture_output=True, text=True, check=True, env=env)
    build = json.loads(done.stdout)
    size = sum(os.path.getsize(f"{index}{s}") for s in ("", "-wal")
               if os.path.exists(f"{index}{s}"))
    first = build["first"]
    first_cpu = first["cpu"] + first["workers"]
    first_rate = build["text"] / 1e6 / first_cpu if first_cpu else 0.0
    print(f"first phase: {first['wall']:.1f} s wall, CPU {first['cpu']:.1f} s main + "
          f"{first['workers']:.1f} s workers -> {first_rate:.2f} MB per CPU-s (every kind of "
          f"search answers from the index; definitions from definition lines)")
    cpu = build["cpu"] + build["workers"]
    rate = build["text"] / 1e6 / cpu if cpu else 0.0
    print(f"complete build: {build['wall']:.1f} s wall, CPU {build['cpu']:.1f} s main + "
          f"{build['workers']:.1f} s workers -> {rate:.2f} MB per CPU-s; {build['files']:,} "
          f"files, {build['text'] / 1e6:.1f} MB of text, {build['symbols']:,} symbols")
    print(f"index size: {size / 1e6:.1f} MB = {size / build['text']:.2f} x the text; "
          f"peak RSS (main + workers) {build['peak_kb'] / 1024:.0f} MB ({build['counted_peak_kb'] / 1024:.0f} MB "
          "once the bench's own counting queries have read the index)")
    return {"first phase MB per CPU-s": first_rate, "build MB per CPU-s": rate,
            "index / text": size / build["text"],
            "peak RSS MB": build["peak_kb"] / 1024}


# --- warm searches -----------------------------------------------------------------------

def timed(function: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The median wall-clock and thread-CPU seconds of ``repeat`` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.thread_time()
        function()
        cpus.append(time.thread_time() - cpu)
        walls.append(time.perf_counter() - started)
    return statistics.median(walls), statistics.median(cpus)


def compare(label: str, engine: Workspace, root: Path, calls: list[SearchCall], repeat: int,
            peer: Callable[[SearchCall], tuple[float, float]]) -> dict[str, float]:
    """Each call's median beside its peers' (rg, git grep); p50 and p95 of each, and of
    the engine's thread CPU."""
    ours, cpus, rg_times, git_times = [], [], [], []
    for call in calls:
        engine.search(call)  # warm-up
        wall, cpu = timed(lambda call=call: engine.search(call), repeat)
        ours.append(wall)
        cpus.append(cpu)
        rg_seconds, git_seconds = peer(call)
        rg_times.append(rg_seconds)
        git_times.append(git_seconds)
    p50, p95 = statistics.median(ours) * 1000, percentile(ours, 0.95) * 1000
    rg50, rg95 = statistics.median(rg_times) * 1000, percentile(rg_times, 0.95) * 1000
    git50, git95 = statistics.median(git_times) * 1000, percentile(git_times, 0.95) * 1000
    print(f"{label:<8} sari p50 {p50:8.1f} ms  p95 {p95:8.1f} ms | rg p50 {rg50:7.1f} p95 "
          f"{rg95:7.1f} | git grep p50 {git50:7.1f} p95 {git95:7.1f} | rg/sari p50 "
          f"{rg50 / p50:5.1f}x")
    cpu50, cpu95 = statistics.median(cpus) * 1000, percentile(cpus, 0.95) * 1000
    print(f"{'':<8} sari thread CPU p50 {cpu50:8.2f} ms  p95 {cpu95:8.2f} ms  p95/p50 "
          f"{cpu95 / cpu50 if cpu50 else 0.0:5.2f}x (wall p95/p50 {p95 / p50:5.2f}x; load "
          f"average {os.getloadavg()[0]:.1f})")
    return {"p50": p50, "p95": p95, "rg50": rg50, "cpu50": cpu50, "cpu95": cpu95}


def navigate(engine: Workspace, repeat: int,
             navigation: list[tuple[str, str, str | None]]) -> None:
    """Each navigation query's median time and what it found (the same before and after a
    change of how references are stored)."""
    for kind, query, mode in navigation:
        call = SearchCall(query=query, kind=kind, match=mode)  # type: ignore[arg-type]
        result = engine.search(call)  # warm-up
        wall, cpu = timed(lambda call=call: engine.search(call), repeat)
        names = result.extra.get("names", [])
        answer = hashlib.sha1(json.dumps([names, [[m.path, m.line, m.kind, m.scope]
                                                  for m in result.matches]]).encode())
        print(f"navigate {kind} {query!r}{f' ({mode})' if mode else ''}: {wall * 1000:.1f} ms "
              f"wall, {cpu * 1000:.1f} ms thread CPU; {result.total} locations, "
              f"{len(names)} names, answer {answer.hexdigest()[:10]}")


def warm(root: Path, index: Path, repeat: int, literals: list[str], regexes: list[str],
         symbols: list[str], navigation: list[tuple[str, str, str | None]]
         ) -> dict[str, float]:
    def text_peer(call: SearchCall) -> tuple[float, float]:
        regex = call.kind == "regex"
        rg = statistics.median(rg_files(root, call.query, regex=regex)[0]
                               for _ in range(repeat))
        git = statistics.median(git_grep(root, call.query, regex=regex) for _ in range(repeat))
        return rg, git

    def symbol_peer(call: SearchCall) -> tuple[float, float]:
        pattern = rf"(def|class) {call.query}"
        rg = statistics.median(rg_files(root, pattern, regex=True, ignore_case=False)[0]
                               for _ in range(repeat))
        git = statistics.median(git_grep(root, pattern, regex=True, ignore_case=False)
                                for _ in range(repeat))
        return rg, git

    with Workspace([root], index_path=index, watch=True) as engine:
        engine.ensure_index(progress=False)
        navigate(engine, repeat, navigation)
        literal = compare("literal", engine, root, [SearchCall(query=q, literal=True)
                                                     for q in literals], repeat, text_peer)
        regex = compare("regex", engine, root, [SearchCall(query=q, kind="regex")
                                                 for q in regexes], repeat, text_peer)
        symbol = compare("symbol", engine, root, [SearchCall(query=q, kind="symbol")
                                                   for q in symbols], repeat, symbol_peer)
    return {"symbol p50 ms": symbol["p50"], "symbol CPU p95 ms": symbol["cpu95"],
            "literal p95 / p50": literal["p95"] / literal["p50"],
            "literal CPU p95 / p50": literal["cpu95"] / literal["cpu50"] if literal["cpu50"]
            else 0.0,
            "regex p50 / rg p50": regex["p50"] / regex["rg50"]}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def _fresh_copy(root: Path, built: Path, copy: Path, parse: str) -> Iterator[Workspace]:
    """A workspace over a copy of the index ``built`` (removed afterwards): what one
    query parses in it is not there for the next."""
    for suffix in ("", "-wal"):
        if os.path.exists(f"{built}{suffix}"):
            shutil.copyfile(f"{built}{suffix}", f"{copy}{suffix}")
    try:
        with Workspace([root], index_path=copy, watch=False, parse=parse) as engine:
            engine.ensure_index(progress=False)
            yield engine
    finally:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{copy}{suffix}")


def first_navigation(root: Path, indexes: dict[str, Path], scratch: Path,
                     navigation: list[tuple[str, str, str | None]]) -> dict[str, float]:
    """Each navigation query's first call, on a fresh copy of each built index (so an
    on-demand index parses what that query needs, and nothing another query parsed):
    its CPU (the calling thread's and its workers'), the sums, and whether every answer
    is the same."""
    cpu_sums = dict.fromkeys(indexes, 0.0)
    same = True
    for kind, query, mode in navigation:
        call = SearchCall(query=query, kind=kind, match=mode)  # type: ignore[arg-type]
        answers, parts = set(), []
        for parse, built in indexes.items():
            with _fresh_copy(root, built, scratch / "first-navigation.sqlite", parse) as engine:
                started, cpu = time.perf_counter(), time.thread_time()
                workers = _children_cpu()
                result = engine.search(call)
                # (a parse of many files runs in workers, waited for before it returns)
                cpu = time.thread_time() - cpu + _children_cpu() - workers
                wall = time.perf_counter() - started
            cpu_sums[parse] += cpu
            answers.add(json.dumps([[m.path, m.line, m.kind] for m in result.matches]))
            partial = any(note.startswith("Partial") for note in result.notes)
            parts.append(f"{parse} {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU"
                         + (" (partial: its deadline)" if partial else ""))
        same = same and len(answers) == 1
        print(f"first {kind} {query!r}{f' ({mode})' if mode else ''}: " + "; ".join(parts)
              + ("; same answer" if len(answers) == 1 else "; ANSWERS DIFFER"))
    print("first navigation, CPU summed: " + ", ".join(
        f"{parse} {seconds:.2f} s" for parse, seconds in cpu_sums.items())
        + f"; answers {'the same' if same else 'DIFFER'}")
    # the same queries one after the other on one copy, as a session asks them (a name's
    # files parsed once serve the queries after it)
    session = dict.fromkeys(indexes, 0.0)
    for parse, built in indexes.items():
        with _fresh_copy(root, built, scratch / "session.sqlite", parse) as engine:
            cpu, workers = time.thread_time(), _children_cpu()
            for kind, query, mode in navigation:
                engine.search(SearchCall(query=query, kind=kind, match=mode))  # type: ignore[arg-type]
            session[parse] = time.thread_time() - cpu + _children_cpu() - workers
    print("the same queries in one session, CPU: " + ", ".join(
        f"{parse} {seconds:.2f} s" for parse, seconds in session.items()))
    return {f"first navigation CPU s, {parse}": seconds for parse, seconds in cpu_sums.items()}


def verdicts(figures: dict[str, float]) -> None:
    parts = []
    for name, target in TARGETS.items():
        value = figures[name]
        higher_is_better = name.endswith("MB per CPU-s")
        met = value >= target if higher_is_better else value <= target
        parts.append(f"{name} {value:.2f} ({'>=' if higher_is_better else '<='} {target:g}: "
                     f"{'met' if met else 'NOT met'})")
    print("targets: " + "; ".join(parts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus_arguments(parser)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--parse", choices=("eager", "on-demand"), default="eager",
                        help="on-demand: also build parsing on demand, and time each "
                             "navigation query's first call on both indexes")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny corpus, 1x, one run per query: checks the bench works (CI)")
    parser.add_argument("--first-only", action="store_true",
                        help="only the first answers on the never-indexed tree (CLI, MCP, rg)")
    parser.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                        help="first answers with Python compiling every module from source "
                             "(no bytecode cache), as PYTHONDONTWRITEBYTECODE=1 leaves it")
    args = parser.parse_args(argv)
    literals, regexes, symbols, navigation = LITERALS, REGEXES, SYMBOLS, NAVIGATION
    with tempfile.TemporaryDirectory(prefix="sari-bench-search-") as scratch_name:
        scratch = Path(scratch_name)
        if args.smoke:
            base = smoke_corpus(scratch / "smoke")
            args.scales, args.repeat = [1], 1
            literals, regexes, symbols = literals[:3], regexes[:2], [*symbols[:2], symbols[-1]]
            navigation = [("callers", "execute_read", None), ("implementations", "Parser", None),
                          ("callers", "execute_", "prefix")]
        else:
            base = corpus_of(args)
        version = subprocess.run([rg_base()[0], "--version"], capture_output=True,
                                 text=True).stdout.splitlines()[0]
        git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
        print(f"python {sys.version.split()[0]}, {version}, {git.strip()}, {os.cpu_count()} "
              f"cores, load average {os.getloadavg()[0]:.1f}; corpus {base}")
        for scale in args.scales:
            root = scaled(base, scale, scratch)
            print(f"\n== {scale}x")
            figures: dict[str, float] = {}
            first = first_answers(root, scratch, rg_files, git_grep, bytecode=args.bytecode,
                                  rounds=args.repeat)
            figures["first answer / rg"] = max(first["cli"], first["mcp"]) / first["rg"]
            if args.first_only:
                continue
            index = scratch / f"index-{scale}x.sqlite"
            figures.update(cold_build(root, index))
            figures.update(warm(root, index, args.repeat, literals, regexes, symbols,
                                navigation))
            verdicts(figures)
            if args.parse == "on-demand":
                print("\n-- parsing on demand")
                lazy = scratch / f"index-{scale}x-on-demand.sqlite"
                on_demand = cold_build(root, lazy, parse="on-demand")
                first_navigation(root, {"eager": index, "on-demand": lazy}, scratch,
                                 navigation)
                verdicts({**figures, **on_demand})
    return 0


if __name__ == "__main__":
    sys.exit(main())
