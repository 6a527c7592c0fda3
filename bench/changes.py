"""Change-detection benchmark: what noticing changes on disk costs a call.

Corpus: a copy of part of this Python's standard library (the top-level modules
and a few packages), made into a scratch folder so the bench may edit it;
nothing is downloaded.

For the watcher (``Workspace(watch=True)``), the fallback stat sweep
(``watch=False``, rate-limited by ``SARI_SWEEP_INTERVAL``) and the same sweep on
every call (``SARI_SWEEP_INTERVAL=0``), in the same run, it prints:

* idle call: ``poll_changes()`` when nothing changed, median and p90 over
  ``--idle`` calls — what every tool call pays before it is served;
* one-file re-index: append a line to one file, then ``poll_changes()`` until the
  change is reported, median over ``--edits`` edits — the first call after an
  edit;
* the ratio of the every-call sweep to the watcher for both.

Usage: ``python bench/changes.py [--idle N] [--edits N] [--smoke]`` (``--smoke``: the
``json`` package alone, 20 idle calls and 2 edits — checks the bench works, CI)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from sari_core.engine import Workspace

PACKAGES = ("asyncio", "email", "json", "http", "unittest", "importlib", "concurrent", "xml",
            "multiprocessing", "logging", "encodings", "ctypes", "tkinter", "idlelib")


def build_corpus(target: Path, smoke: bool = False) -> int:
    """Copy the stdlib's top-level modules and a few packages (the ``json`` package alone
    for a smoke run: the edited file lives there); return the file count."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    target.mkdir(parents=True)
    for module in [] if smoke else sorted(stdlib.glob("*.py")):
        shutil.copy2(module, target / module.name)
    for package in ("json",) if smoke else PACKAGES:
        shutil.copytree(stdlib / package, target / package,
                        ignore=shutil.ignore_patterns("__pycache__", "test*"))
    return sum(1 for path in target.rglob("*.py"))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(corpus: Path, watch: bool, idle: int, edits: int) -> dict[str, float | str]:
    index_path = corpus.parent / f"index-{watch}-{os.environ.get('SARI_SWEEP_INTERVAL')}.sqlite"
    with Workspace([corpus], watch=watch, index_path=index_path) as workspace:
        workspace.ensure_index(progress=False)
        workspace.poll_changes()
        idle_times = []
        for _ in range(idle):
            started = time.perf_counter()
            assert workspace.poll_changes() == []
            idle_times.append(time.perf_counter() - started)
        edit_times = []
        target = corpus / "json" / "decoder.py"
        for number in range(edits):
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(f"bench_marker_{number} = {number}\n")
            started = time.perf_counter()
            changes: list = []
            while not changes:  # a rate-limited sweep may report on a later call
                changes = workspace.poll_changes()
            edit_times.append(time.perf_counter() - started)
            assert [change.path for change in changes] == ["json/decoder.py"], changes
        source = type(workspace._changes).__name__
    return {"source": source, "idle_p50": statistics.median(idle_times),
            "idle_p90": percentile(idle_times, 0.9), "edit_p50": statistics.median(edit_times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--idle", type=int, default=300)
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny corpus and few calls: checks the bench works (CI)")
    options = parser.parse_args()
    if options.smoke:
        options.idle, options.edits = 20, 2
    with tempfile.TemporaryDirectory(prefix="sari-bench-changes-") as scratch:
        corpus = Path(scratch) / "corpus"
        files = build_corpus(corpus, options.smoke)
        print(f"corpus: {files} Python files (stdlib copy)")
        rows = {"watch": measure(corpus, True, options.idle, options.edits),
                "sweep": measure(corpus, False, options.idle, options.edits)}
        os.environ["SARI_SWEEP_INTERVAL"] = "0"
        rows["sweep/0"] = measure(corpus, False, options.idle, options.edits)
    print(f"{'mode':<8} {'source':<18} {'idle p50':>10} {'idle p90':>10} {'1-file p50':>11}")
    for mode, row in rows.items():
        print(f"{mode:<8} {row['source']:<18} "
              f"{row['idle_p50'] * 1e6:>8.0f}µs {row['idle_p90'] * 1e6:>8.0f}µs "
              f"{row['edit_p50'] * 1e3:>9.2f}ms")
    watch_row, sweep_row = rows["watch"], rows["sweep/0"]
    print(f"every-call sweep/watch: idle {sweep_row['idle_p50'] / watch_row['idle_p50']:.1f}x, "
          f"one-file {sweep_row['edit_p50'] / watch_row['edit_p50']:.1f}x")

if __name__ == "__main__":
    main()
