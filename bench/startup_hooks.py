"""The CPU one ``sari hook claude-code EVENT`` process takes, beside its floor.

A coding client runs the hook command in a process of its own on each of its tool calls,
so its start-up is paid per call. Each event is timed as the CPU (user + system) of a
fresh child process, read with ``getrusage(RUSAGE_CHILDREN)`` around it, next to the bare
interpreter (``python -c pass``) and ``sari --version`` measured in the same rounds,
alternating. CPU-seconds hold up on a loaded machine where wall-clock times do not.

The payloads are what Claude Code sends for a ``Read`` (after and before it), a session's
start and its stop. ``pre-compact`` is left out: it ingests the transcript, which is work,
not start-up. Sari's state goes to a temporary folder.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class HookCase:
    label: str
    argv: tuple[str, ...]
    stdin: str = ""


def hook_cases(workspace: Path) -> list[HookCase]:
    read = {"session_id": "bench", "cwd": str(workspace), "tool_name": "Read",
            "tool_input": {"file_path": str(workspace / "README.md")}}
    payloads = {
        "post-tool-use": {**read, "hook_event_name": "PostToolUse",
                          "tool_response": {"type": "text"}},
        "pre-tool-use": {**read, "hook_event_name": "PreToolUse"},
        "session-start": {"session_id": "bench", "cwd": str(workspace),
                          "hook_event_name": "SessionStart", "source": "startup"},
        "stop": {"session_id": "bench", "cwd": str(workspace), "hook_event_name": "Stop"},
    }
    return [HookCase("python -c pass", ("-c", "pass")),
            HookCase("sari --version", ("-m", "sari_core.cli.main", "--version")),
            *(HookCase(f"sari hook claude-code {event}",
                       ("-m", "sari_core.cli.main", "hook", "claude-code", event),
                       json.dumps(payload))
              for event, payload in payloads.items())]


def child_cpu_seconds(python: str, case: HookCase, env: dict[str, str]) -> float:
    """CPU of one fresh process running ``case`` (it must exit 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([python, *case.argv], input=case.stdin, capture_output=True,
                          text=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{case.label} exited {done.returncode}: {done.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def answering_plugins(event: str) -> str:
    """The plugins this environment's ``sari hook`` imports for ``event``."""
    from sari_core.kernel.loading import plugin_and_hook_entry_points, plugins_answering

    names = plugins_answering("claude-code", event, *plugin_and_hook_entry_points())
    return ", ".join(names) or "none"


def measure_hooks(python: str, workspace: Path, rounds: int,
                  baseline_python: str | None = None) -> dict[str, dict[str, float]]:
    """Median CPU seconds per case: {"this": {label: s}, "baseline": {...}}."""
    cases = hook_cases(workspace)
    sides = {"this": python, **({"baseline": baseline_python} if baseline_python else {})}
    samples: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    with tempfile.TemporaryDirectory(prefix="sari-hook-bench-") as state:
        env = {**os.environ, "SARI_STATE_DIR": state, "SARI_CACHE_DIR": state}
        for exe in sides.values():  # warm the file cache and the bytecode
            for case in cases:
                child_cpu_seconds(exe, case, env)
        for _ in range(rounds):
            for case in cases:
                for side, exe in sides.items():
                    samples[side].setdefault(case.label, []).append(
                        child_cpu_seconds(exe, case, env))
    return {side: {label: statistics.median(values) for label, values in by_case.items()}
            for side, by_case in samples.items()}


def print_hooks(medians: dict[str, dict[str, float]], rounds: int) -> None:
    this = medians["this"]
    floor = this["python -c pass"]
    print(f"hook command CPU (user + system of a fresh process), median of {rounds}:")
    for label, seconds in this.items():
        event = label.rsplit(" ", 1)[1] if label.startswith("sari hook") else ""
        answered = f"  imports: {answering_plugins(event)}" if event else ""
        baseline = medians.get("baseline", {}).get(label)
        before = f"  baseline {baseline * 1000:5.0f} ms" if baseline is not None else ""
        print(f"  {label:<38} {seconds * 1000:5.0f} ms  ({seconds / floor:4.1f}x python)"
              f"{before}{answered}")
