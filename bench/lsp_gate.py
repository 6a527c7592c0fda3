"""Per-edit validation latency: the LSP gate's warm servers versus each checker's CLI run cold.

A real standard-library module is copied to a temporary folder and edited ``--edits`` times
(comment lines inserted, errors introduced and fixed again — a deterministic sequence).
After each edit the file is validated

* warm: through sari-lspgate's ``ValidationRunner`` — one warm ``ruff server`` and one warm
  ``basedpyright-langserver`` (each alone, then both as the gate runs them); the content
  before the edit is known from the previous validation, as in the gate;
* cold: by the checkers' command lines on the same file, ``ruff check --no-cache FILE`` and
  ``basedpyright FILE``, one process per edit, as a hook script would run them.

The first warm validation (server start, first analysis) is reported apart and left out of
the percentiles. Prints p50/p95 per row and the cold/warm ratios.

    python bench/lsp_gate.py [--module textwrap] [--edits 40] [--smoke]

(``--smoke``: three edits, one of them an error — checks the bench works, CI; its
percentiles are noise.)
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
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SARI_STATE_DIR", tempfile.mkdtemp(prefix="sari-bench-"))

from sari_lspgate.runner import ChangeTarget, ValidationRunner  # noqa: E402
from sari_lspgate.settings import LspGateSettings  # noqa: E402


def edit_sequence(text: str, count: int) -> list[str]:
    """``count`` successive versions of ``text``: every third edit introduces an error (a
    type error or a syntax error, alternately) and the next one removes it again."""
    versions = []
    lines = text.splitlines(keepends=True)
    returns = [i for i, line in enumerate(lines) if line.strip().startswith("return ")
               and line.strip() != "return"]
    broken: tuple[int, str] | None = None
    for step in range(count):
        anchor = returns[(step * 7) % len(returns)]
        if broken is not None:
            index, original = broken
            lines[index] = original
            broken = None
        elif step % 3 == 1:
            original = lines[anchor]
            indent = original[: len(original) - len(original.lstrip())]
            bad = ("return undefined_bench_name\n" if step % 2 else "return (1 +\n")
            lines[anchor] = indent + bad
            broken = (anchor, original)
        else:
            indent = lines[anchor][: len(lines[anchor]) - len(lines[anchor].lstrip())]
            lines.insert(anchor, f"{indent}# bench edit {step}\n")
            returns = [i + 1 if i >= anchor else i for i in returns]
        versions.append("".join(lines))
    return versions


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def warm_latencies(path: Path, root: Path, original: str, versions: list[str],
                   **settings: object) -> tuple[float, list[float], int]:
    """(first validation ms, per-edit ms, edits with errors) through one warm runner."""
    runner = ValidationRunner(LspGateSettings(**settings), [root])  # type: ignore[arg-type]
    try:
        path.write_text(original)
        started = time.perf_counter()
        runner.validate(ChangeTarget(root, path, path.name, None, original, old_known=False))
        first = (time.perf_counter() - started) * 1000
        timings = []
        with_errors = 0
        previous = original
        for text in versions:
            path.write_text(text)
            started = time.perf_counter()
            results = runner.validate(ChangeTarget(root, path, path.name, previous, text))
            timings.append((time.perf_counter() - started) * 1000)
            if any(r.status != "ok" for r in results):
                raise SystemExit(f"a validator failed: {[r.reason for r in results]}")
            with_errors += any(d.severity == "error" for r in results for d in r.current)
            previous = text
        return first, timings, with_errors
    finally:
        runner.close()


def cold_latencies(path: Path, versions: list[str], command: list[str]) -> tuple[list[float], int]:
    """Per-edit ms of one CLI process on the file, and how many runs reported problems."""
    timings = []
    failing = 0
    for text in versions:
        path.write_text(text)
        started = time.perf_counter()
        result = subprocess.run([*command, str(path)], cwd=path.parent, capture_output=True,
                                text=True)
        timings.append((time.perf_counter() - started) * 1000)
        failing += result.returncode != 0
    return timings, failing


def executable(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found (pip install sari-lspgate brings it)")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="textwrap", help="standard-library module to edit")
    parser.add_argument("--edits", type=int, default=40, help="number of edits (>= 30)")
    parser.add_argument("--smoke", action="store_true",
                        help="three edits: checks the bench works (CI)")
    args = parser.parse_args()
    if args.smoke:
        args.edits = 3
    source = Path(sysconfig.get_paths()["stdlib"]) / f"{args.module}.py"
    original = source.read_text()
    versions = edit_sequence(original, args.edits)
    root = Path(tempfile.mkdtemp(prefix="sari-bench-lsp-"))
    path = root / source.name
    ruff, basedpyright = executable("ruff"), executable("basedpyright")

    rows: list[tuple[str, list[float], str]] = []
    notes: list[str] = []
    warm_runs: dict[str, Callable[[], tuple[float, list[float], int]]] = {
        "ruff": lambda: warm_latencies(path, root, original, versions, basedpyright=False),
        "basedpyright": lambda: warm_latencies(path, root, original, versions, ruff=False),
        "gate (ruff + basedpyright)": lambda: warm_latencies(path, root, original, versions),
    }
    warm: dict[str, list[float]] = {}
    for name, run in warm_runs.items():
        first, timings, with_errors = run()
        warm[name] = timings
        rows.append((f"warm {name}", timings, f"{with_errors} edits with errors"))
        notes.append(f"first validation of warm {name} (server start + first analysis): "
                     f"{first:.0f} ms")
    cold_ruff, ruff_failing = cold_latencies(path, versions, [ruff, "check", "--no-cache"])
    cold_bp, bp_failing = cold_latencies(path, versions, [basedpyright])
    rows.append(("cold ruff check FILE", cold_ruff, f"{ruff_failing} runs reported problems"))
    rows.append(("cold basedpyright FILE", cold_bp, f"{bp_failing} runs reported problems"))
    both = [a + b for a, b in zip(cold_ruff, cold_bp, strict=True)]
    rows.append(("cold both, one after the other", both, ""))

    lines = sum(1 for _ in original.splitlines())
    print(f"python {sys.version.split()[0]}, {source.name} ({lines} lines), "
          f"{len(versions)} edits, {os.cpu_count()} cpus")
    print(f"{'validation per edit':34} {'p50 ms':>9} {'p95 ms':>9}   note")
    for name, timings, note in rows:
        print(f"{name:34} {statistics.median(timings):9.1f} {percentile(timings, 0.95):9.1f}"
              f"   {note}")
    for note in notes:
        print(note)
    for label, cold, hot in (("ruff", cold_ruff, warm["ruff"]),
                             ("basedpyright", cold_bp, warm["basedpyright"]),
                             ("gate vs cold both", both, warm["gate (ruff + basedpyright)"])):
        print(f"ratio cold/warm {label:18} p50 {statistics.median(cold) / statistics.median(hot):6.1f}x"
              f"   p95 {percentile(cold, 0.95) / percentile(hot, 0.95):6.1f}x")
    ratio = statistics.median(cold_bp) / statistics.median(warm["basedpyright"])
    verdict = "met" if ratio >= 5 else "NOT met"
    print(f"target: warm basedpyright >= 5x faster than cold basedpyright at p50: {verdict} "
          f"({ratio:.1f}x)")
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
