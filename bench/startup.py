"""Start-up: how long ``sari serve`` takes to answer ``initialize``, next to its floor.

The floor is the interpreter importing the MCP SDK's lowlevel server
(``python -c "import mcp.server.lowlevel"``), which any Python MCP server pays, timed
from the spawn to a line printed after the import (the interpreter's exit, which
tears down the SDK's module graph, is not counted, as it is not on the serve side).
Both are measured in the same run, alternating, each in a fresh process; the
serve side also reports its phases (``SARI_STARTUP_REPORT``). The workspace is
this repository (the index builds in the background, so its size does not
delay ``initialize``).

    python bench/startup.py [--rounds 7] [--workspace PATH] [--baseline-python EXE] [--json PATH]

``--baseline-python`` also times ``sari serve`` run by another interpreter (one whose
environment holds another version of Sari, e.g. the previous commit) in the same rounds.

It then prints the CPU of one ``sari hook claude-code EVENT`` process per event, beside
``python -c pass`` and ``sari --version`` (see :mod:`startup_hooks`); ``--hooks-only``
prints that alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup_hooks import measure_hooks, print_hooks  # noqa: E402

from sari_core.server.startup import BACKGROUND_SUFFIX, StartupMeasure, measure  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def sdk_import_seconds() -> float:
    """Spawn to "imported", like spawn to the initialize reply (interpreter exit excluded)."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", "import mcp.server.lowlevel; print('ok')"],
                             stdout=subprocess.PIPE)
    assert child.stdout is not None
    line = child.stdout.readline()
    elapsed = time.perf_counter() - started
    child.wait()
    if line.strip() != b"ok":
        raise RuntimeError("importing mcp.server.lowlevel failed")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--workspace", type=Path, default=REPO)
    parser.add_argument("--baseline-python", metavar="EXE",
                        help="also time sari serve run by this interpreter's environment")
    parser.add_argument("--smoke", action="store_true",
                        help="one round: checks the bench works (CI)")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="also write the medians as JSON to PATH (the docs' chart reads "
                             "docs/data/startup.json)")
    parser.add_argument("--hooks-only", action="store_true",
                        help="only the hook command's CPU per event")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rounds = 1
    if not args.hooks_only:
        serve_startup(args)
    print_hooks(measure_hooks(sys.executable, args.workspace, args.rounds,
                              args.baseline_python), args.rounds)
    return 0


def serve_startup(args: argparse.Namespace) -> None:
    sdk: list[float] = []
    serves: list[StartupMeasure] = []
    baseline: list[float] = []
    sdk_import_seconds()  # warm the file cache for both sides
    measure(args.workspace)
    if args.baseline_python:
        measure(args.workspace, python=args.baseline_python)
    for _ in range(args.rounds):
        sdk.append(sdk_import_seconds())
        serves.append(measure(args.workspace))
        if args.baseline_python:
            baseline.append(measure(args.workspace, python=args.baseline_python)
                            .initialize_seconds)
    floor = statistics.median(sdk)
    initialize = statistics.median(m.initialize_seconds for m in serves)
    print(f"rounds: {args.rounds}, workspace: {args.workspace}")
    print(f"python -c 'import mcp.server.lowlevel'  median {floor * 1000:7.0f} ms")
    print(f"sari serve -> initialize reply          median {initialize * 1000:7.0f} ms "
          f"({initialize / floor:.2f}x the SDK import)")
    print(f"Sari's own share                        median {(initialize - floor) * 1000:7.0f} ms")
    if baseline:
        before = statistics.median(baseline)
        print(f"baseline sari serve -> initialize      median {before * 1000:7.0f} ms "
              f"({before / floor:.2f}x the SDK import)")
    names = dict.fromkeys(name for m in serves for name in m.phases)
    medians = {name: statistics.median(m.phases.get(name, 0.0) for m in serves)
               for name in names}
    # Phases run after the reply (the kernel opening on its thread) are shown, not stacked.
    phases = {name: s for name, s in medians.items() if not name.endswith(BACKGROUND_SUFFIX)}
    after = {name: s for name, s in medians.items() if name.endswith(BACKGROUND_SUFFIX)}
    for name, seconds in [*phases.items(), *after.items()]:
        print(f"  phase {name:<34} median {seconds * 1000:7.0f} ms")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "rounds": args.rounds, "python": sys.version.split()[0],
            "sdk_import_seconds": floor, "initialize_seconds": initialize,
            "phases_seconds": phases, "after_initialize_seconds": after}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
