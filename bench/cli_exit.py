"""When the shell comes back: ``sari search`` on a never-indexed tree against the same search
once the tree is indexed, beside ``rg -l`` on the same query in the same run.

Each round spawns ``sari search QUERY`` in a fresh cache folder (the tree never indexed) and
times it from spawn to exit, wall-clock and CPU (the process and what it waited for: its
early ``rg``); the index build it leaves running detached is not counted, then waited for
(``sari index`` waits for it). The same search is then spawned again on the built index.
The target: the cold command exits within 2x the indexed one. CPU-seconds do not stretch
with the machine's load; wall-clock seconds are printed beside them::

    python bench/cli_exit.py [--corpus PATH] [--rounds 3] [--query Q] [--smoke]
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
from pathlib import Path

TARGET_RATIO = 2.0


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds from spawn to exit, CPU seconds of the process and its waited-for
    children, stdout)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=env, cwd=env.get("SARI_CACHE_DIR"))
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if process.returncode not in (0, 1):
        raise SystemExit(f"{command[:4]} failed with {process.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime, out.decode(errors="replace")


def sari(*argv: str) -> list[str]:
    return [sys.executable, "-m", "sari_core.cli.main", *argv]


def round_figures(root: Path, query: str, scratch: Path) -> dict[str, float]:
    cache = Path(tempfile.mkdtemp(dir=scratch, prefix="cache-"))
    env = {**os.environ, "SARI_CACHE_DIR": str(cache), "SARI_PLUGINS": "none"}
    search = sari("search", query, "--workspace", str(root), "--limit", "5")
    cold_wall, cold_cpu, cold_out = timed(search, env)
    subprocess.run(sari("index", str(root)), env=env, stdout=subprocess.DEVNULL, check=True)
    warm_wall, warm_cpu, warm_out = timed(search, env)
    rg_wall, rg_cpu, _ = timed(["rg", "-l", "--fixed-strings", query, str(root)], env)
    if "(index still building)" not in cold_out or "(index still building)" in warm_out:
        raise SystemExit("the cold search was not cold, or the warm one not indexed")
    shutil.rmtree(cache, ignore_errors=True)
    return {"cold_wall": cold_wall, "cold_cpu": cold_cpu, "warm_wall": warm_wall,
            "warm_cpu": warm_cpu, "rg_wall": rg_wall, "rg_cpu": rg_cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--query", default="def parse_args")
    parser.add_argument("--smoke", action="store_true", help="a tiny tree, one round")
    args = parser.parse_args(argv)
    if shutil.which("rg") is None:
        raise SystemExit("rg (the ripgrep wheel) is not on PATH")
    with tempfile.TemporaryDirectory(prefix="sari-cli-exit-") as scratch_name:
        scratch = Path(scratch_name)
        root = args.corpus.resolve()
        rounds = args.rounds
        if args.smoke:
            root = scratch / "tree"
            for number in range(50):
                (root / f"pkg{number % 5}").mkdir(parents=True, exist_ok=True)
                (root / f"pkg{number % 5}" / f"mod{number}.py").write_text(
                    f"def parse_args(value):\n    return value + {number}\n")
            rounds = 1
        rows = [round_figures(root, args.query, scratch) for _ in range(rounds)]
    median = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    print(f"corpus {root}, query {args.query!r}, {rounds} round(s), medians")
    print(f"{'':28}{'wall s':>10}{'CPU s':>10}")
    for label, key in (("sari search, never indexed", "cold"), ("sari search, indexed", "warm"),
                       ("rg -l (peer)", "rg")):
        print(f"{label:28}{median[key + '_wall']:>10.3f}{median[key + '_cpu']:>10.3f}")
    cpu_ratio = median["cold_cpu"] / median["warm_cpu"]
    wall_ratio = median["cold_wall"] / median["warm_wall"]
    verdict = "met" if cpu_ratio <= TARGET_RATIO else "NOT met"
    print(f"cold / indexed: {cpu_ratio:.2f}x CPU, {wall_ratio:.2f}x wall "
          f"(target <= {TARGET_RATIO:.1f}x: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
