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

It also lists what ``sari serve`` imports before it answers, beyond the SDK's own modules
(``python -X importtime``), beside the SDK's import time.

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


# What ``sari serve`` imports before it answers ``initialize`` over stdio (serve.py's order).
SERVE_IMPORTS = ("import mcp.server.lowlevel\n"
                 "import sari_core.cli.main\n"
                 "from sari_core.cli.commands import serve\n"
                 "from sari_core.server.app import SariServer\n"
                 "from sari_core.server.kernel_loading import KernelLoading\n"
                 "from sari_core.server.transports import serve_stdio\n")


def import_times(code: str) -> dict[str, int]:
    """``python -X importtime``: each module's own import time, in microseconds."""
    stderr = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                            capture_output=True, text=True, check=True).stderr
    own: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line.removeprefix("import time:").split("|")
        own[name.strip()] = int(self_us)
    return own


def print_serve_imports(rounds: int) -> None:
    """The modules ``sari serve`` imports before ``initialize`` beyond the SDK's own, with
    their import time beside the SDK's (medians of ``rounds`` fresh processes)."""
    sdk_runs = [import_times("import mcp.server.lowlevel") for _ in range(rounds)]
    serve_runs = [import_times(SERVE_IMPORTS) for _ in range(rounds)]
    sdk_modules = set().union(*sdk_runs)
    sdk_total = statistics.median(sum(run.values()) for run in sdk_runs)
    extra = [{name: us for name, us in run.items() if name not in sdk_modules}
             for run in serve_runs]
    extra_total = statistics.median(sum(run.values()) for run in extra)
    by_package: dict[str, list[int]] = {}
    for run in extra:
        totals: dict[str, int] = {}
        for name, us in run.items():
            totals[name.split(".")[0]] = totals.get(name.split(".")[0], 0) + us
        for package, us in totals.items():
            by_package.setdefault(package, []).append(us)
    print(f"imports before initialize (python -X importtime, median of {rounds}):")
    print(f"  mcp.server.lowlevel and what it imports    {sdk_total / 1000:7.0f} ms")
    print(f"  beyond it, for sari serve over stdio       {extra_total / 1000:7.0f} ms "
          f"({extra_total / sdk_total:.2f}x the SDK's), {len(extra[0])} modules:")
    for package, values in sorted(by_package.items(), key=lambda item: -sum(item[1])):
        print(f"    {package:<40} {statistics.median(values) / 1000:7.1f} ms")


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
        print_serve_imports(args.rounds)
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
