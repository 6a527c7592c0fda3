"""Reads and index builds through descriptor-relative, no-follow opens, against a plain open.

Every file the engine reads is opened component by component below the workspace
root's descriptor (``O_NOFOLLOW`` at each step), so a folder swapped for a symlink
cannot redirect it. This prints what that costs, on a real tree: the standard
library copied into a temporary folder (its own paths, several folders deep).

* ``read``: the p50 of ``Workspace.read(mode='snippet', 200 lines)`` over every
  ``.py`` file, against the same read done with one plain ``open`` by path
  (read, decode, split, slice) — the floor any reader pays — measured in the same run;
* ``open``: the p50 of opening a file the engine's way (``PathGuard.open_file``)
  against ``os.open`` of its absolute path;
* ``build``: the wall time of a cold index build of the tree (fresh index file).

Usage: ``python bench/read_paths.py [--files N] [--repeat N] [--smoke]`` (``--smoke``: the
``json`` and ``email`` packages, 20 files, one run each — checks the bench works, CI)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from sari_core.engine import Workspace
from sari_core.models import ReadCall

SNIPPET_LINES = 200


def corpus(into: Path, smoke: bool = False) -> Path:
    source = Path(sysconfig.get_paths()["stdlib"])
    root = into / "stdlib"
    ignore = shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__", "*.pyc")
    if not smoke:
        shutil.copytree(source, root, ignore=ignore, symlinks=True)
    for package in ("json", "email") if smoke else ():
        shutil.copytree(source / package, root / package, ignore=ignore, symlinks=True)
    return root


def p50_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def plain_read(path: Path) -> str:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return "".join(text.splitlines(keepends=True)[:SNIPPET_LINES])


def timed(function: object, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()  # type: ignore[operator]
        samples.append(time.perf_counter() - started)
    return min(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=400, help="files read (spread over the tree)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per file (min taken)")
    parser.add_argument("--smoke", action="store_true",
                        help="a small tree, 20 files, one run each: checks the bench works (CI)")
    args = parser.parse_args()
    if args.smoke:
        args.files, args.repeat = 20, 1
    with tempfile.TemporaryDirectory(prefix="sari-bench-read-") as tmp:
        root = corpus(Path(tmp), args.smoke)
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
        step = max(1, len(files) // args.files)
        chosen = files[::step][:args.files]
        depth = statistics.mean(rel.count("/") + 1 for rel in chosen)
        started = time.perf_counter()
        with Workspace([root], index_path=Path(tmp) / "index.sqlite", watch=False) as engine:
            stats = engine.ensure_index(progress=False)
            build = time.perf_counter() - started
            engine_reads, plain_reads, guard_opens, plain_opens = [], [], [], []
            for rel in chosen:
                call = ReadCall(mode="snippet", target=rel, start_line=1,
                                end_line=SNIPPET_LINES)
                engine_reads.append(timed(lambda call=call: engine.read(call), args.repeat))
                plain_reads.append(timed(lambda rel=rel: plain_read(root / rel), args.repeat))

                if not hasattr(engine.guard, "open_file"):
                    continue  # an engine from before descriptor-relative opens

                def guard_open(rel: str = rel) -> None:
                    os.close(engine.guard.open_file(0, rel, rel))

                def plain_open(rel: str = rel) -> None:
                    os.close(os.open(root / rel, os.O_RDONLY))

                guard_opens.append(timed(guard_open, args.repeat))
                plain_opens.append(timed(plain_open, args.repeat))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; {len(chosen)} files, "
          f"mean depth {depth:.1f} components")
    print(f"build: {build:.2f} s cold ({stats.files:,} files, {stats.bytes_indexed / 1e6:.1f} MB)")
    engine_p50, plain_p50 = p50_us(engine_reads), p50_us(plain_reads)
    print(f"read:  engine snippet p50 {engine_p50:.0f} us, plain open+read p50 "
          f"{plain_p50:.0f} us, ratio {engine_p50 / plain_p50:.2f}x")
    if not guard_opens:
        return
    guard_p50, open_p50 = p50_us(guard_opens), p50_us(plain_opens)
    print(f"open:  no-follow walk p50 {guard_p50:.1f} us, os.open(path) p50 {open_p50:.1f} us, "
          f"ratio {guard_p50 / open_p50:.2f}x")


if __name__ == "__main__":
    main()
