"""The replay's report: a terminal table, or JSON for programs; and a progress bar."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, TextIO

from sari_core.costmodel import SessionCost
from sari_core.replay.batch import PolicyTotals, policy_label
from sari_core.replay.runner import SessionReplay


class ProgressBar:
    """``sari replay [#####-----] 120/400 calls`` on stderr, redrawn at most 10 times a second."""

    WIDTH = 30

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self._last = 0.0

    def advance(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            filled = int(min(self.done / self.total, 1.0) * self.WIDTH)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            self.stream.write(f"\rsari replay [{bar}] {self.done:,}/{self.total:,} calls")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# Below this share of a session's calls compared, its ratios say too little to print.
MIN_COVERAGE = 0.8


def _ratio(new: float, old: float, coverage: float) -> str:
    if coverage < MIN_COVERAGE:
        return "-"
    return f"{new / old:.2f}x" if old else "-"


def _cost(cost: SessionCost) -> dict[str, Any]:
    return {**asdict(cost), "uncached": round(cost.uncached, 1), "cached": round(cost.cached, 1)}


def _ratios(sari: SessionCost, then: SessionCost, coverage: float) -> dict[str, float | None]:
    if coverage < MIN_COVERAGE:
        return {"tokens": None, "uncached": None, "cached": None}
    return {"tokens": _round(sari.result_tokens, then.result_tokens),
            "uncached": _round(sari.uncached, then.uncached),
            "cached": _round(sari.cached, then.cached)}


def session_json(result: SessionReplay) -> dict[str, Any]:
    return {
        "session_id": result.session_id, "transcript": result.transcript,
        "policies": list(result.policies), "where": result.where, "commit": result.commit,
        "changed_since": result.changed_since, "calls_recorded": result.calls_recorded,
        "compared": result.compared, "coverage": round(result.coverage, 3),
        "replayed": result.replayed, "passed_through": result.passed_through,
        "errors": result.errors, "left_out": result.left_out,
        "uncompared": [asdict(u) for u in result.uncompared],
        "refusals": [asdict(r) for r in result.refusals], "follow_ups": result.follow_ups,
        "actions": [asdict(a) for a in result.actions],
        "tool_definition_tokens": result.tool_definition_tokens,
        "then": _cost(result.cost_then), "sari": _cost(result.cost_sari),
        "ratio": _ratios(result.cost_sari, result.cost_then, result.coverage),
        "notes": result.notes,
    }


def totals_json(row: PolicyTotals) -> dict[str, Any]:
    return {"policies": list(row.policies), "sessions": row.sessions, "refusals": row.refusals,
            "calls_recorded": row.calls_recorded, "replayed": row.replayed,
            "passed_through": row.passed_through, "uncompared": row.uncompared,
            "coverage": round(row.coverage, 3), "follow_ups": row.follow_ups,
            "then": _cost(row.then), "sari": _cost(row.sari),
            "ratio": _ratios(row.sari, row.then, row.coverage)}


def _round(new: float, old: float) -> float | None:
    return round(new / old, 3) if old else None


def as_json(results: Sequence[SessionReplay], rows: Sequence[PolicyTotals]) -> dict[str, Any]:
    """Everything, for programs: per session and policy set, and the totals."""
    return {"sessions": [session_json(r) for r in results],
            "totals": [totals_json(row) for row in rows]}


HEADER = (f"{'session':<14} {'compared':>9} {'tokens then':>11} {'via Sari':>9} {'turns':>6} "
          f"{'refused':>7} {'uncached':>9} {'cached':>7}")


def _line(name: str, compared: int, recorded: int, then: SessionCost, sari: SessionCost,
          refused: int) -> str:
    coverage = compared / recorded if recorded else 1.0
    calls = f"{compared}/{recorded} {coverage:>4.0%}"
    return (f"{name:<14} {calls:>9} {then.result_tokens:>11,} {sari.result_tokens:>9,} "
            f"{sari.turns:>6} {refused or '-':>7} "
            f"{_ratio(sari.uncached, then.uncached, coverage):>9} "
            f"{_ratio(sari.cached, then.cached, coverage):>7}")


def _brief(arguments: dict[str, Any]) -> str:
    """A call's arguments on one short line (long texts cut)."""
    shown = {key: (f"{value[:60]}..." if isinstance(value, str) and len(value) > 63 else value)
             for key, value in arguments.items()}
    return str(shown)


def as_table(results: Sequence[SessionReplay], rows: Sequence[PolicyTotals]) -> str:
    """The terminal report: one block per policy set, then what could not be compared."""
    out: list[str] = []
    for row in rows:
        mine = [r for r in results if r.policies == row.policies]
        definitions = max((r.tool_definition_tokens for r in mine), default=0)
        out.append(f"Policies: {policy_label(row.policies)}; Sari's tool definitions: "
                   f"{definitions:,} tokens, read on every turn")
        out.append(HEADER)
        for result in mine:
            out.append(_line(result.session_id[:14], result.compared, result.calls_recorded,
                             result.cost_then, result.cost_sari, len(result.refusals)))
        out.append(_line("total", row.replayed + row.passed_through, row.calls_recorded,
                         row.then, row.sari, row.refusals))
        out.append("")
    out.append("compared: recorded calls compared / recorded, and their share; the rest are "
               f"in neither column (below). Below {MIN_COVERAGE:.0%} compared no ratio is "
               "shown. uncached, cached: Sari's turn-aware cost as a multiple of the recorded "
               "session's (below 1.00x is cheaper).")
    details: dict[str, list[str]] = {}
    for result in results:
        lines = details.get(result.session_id)
        if lines is None:
            lines = details[result.session_id] = [result.where, *result.notes]
            if result.changed_since:
                lines.append("changed since the session (replayed as they were then): "
                             + ", ".join(result.changed_since))
            for left in result.uncompared:
                lines.append(f"not compared: line {left.line} ({left.tool}): {left.reason}")
        label = policy_label(result.policies)
        if result.follow_ups:
            lines.append(f"[{label}] {result.follow_ups} follow-up reads charged: later calls "
                         "read, grepped or edited lines Sari had withheld")
        for refusal in result.refusals:
            first = refusal.message.split("\n", 1)[0]
            lines.append(f"[{label}] refused at line {refusal.line} ({refusal.tool} "
                         f"{_brief(refusal.arguments)}): {refusal.code}: {first}")
    for session_id, lines in details.items():
        out.append(f"{session_id}:")
        out.extend(f"  {line}" for line in lines)
    return "\n".join(out) + "\n"
