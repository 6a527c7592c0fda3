"""Replay many transcripts under one or more policy sets.

Each (session, policy set) pair gets its own files and its own kernel: replayed edits
change the private copy, and a policy's session state must not leak from one policy
set into another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sari_core.costmodel import CostModel, SessionCost, total
from sari_core.replay.checkout import Snapshot, changed_since, snapshot_for
from sari_core.replay.mapping import SariCall, to_sari_call
from sari_core.replay.runner import (
    SessionReplay,
    open_kernel,
    replay_session,
    tool_definition_tokens,
)
from sari_core.replay.transcript import Transcript


@dataclass(frozen=True)
class PolicyTotals:
    """Every session of one policy set added up."""

    policies: tuple[str, ...]
    sessions: int
    then: SessionCost
    sari: SessionCost
    refusals: int
    replayed: int
    passed_through: int
    uncompared: int
    follow_ups: int
    calls_recorded: int

    @property
    def coverage(self) -> float:
        """The share of the recorded calls compared."""
        compared = self.replayed + self.passed_through
        return compared / self.calls_recorded if self.calls_recorded else 1.0


def policy_label(policies: Sequence[str]) -> str:
    return ",".join(policies) if policies else "none (Sari core alone)"


def read_paths(transcript: Transcript) -> list[str]:
    """Files the session's replayable calls name, relative to its folder."""
    paths = []
    for call in transcript.calls:
        mapped = to_sari_call(call, transcript.cwd, {})
        if isinstance(mapped, SariCall) and mapped.tool == "read":
            paths.append(str(mapped.arguments.get("target")))
    return paths


def _snapshot(workspace: Path, transcript: Transcript, commit: str | None,
              as_is: bool) -> Snapshot:
    return snapshot_for(workspace, transcript.git_branch, transcript.started, commit, as_is)


def replay_all(transcripts: Sequence[Transcript], policy_sets: Sequence[Sequence[str]],
               workspace: Path, *, commit: str | None = None, as_is: bool = False,
               model: CostModel = CostModel(),  # noqa: B008 - frozen dataclass
               on_call: Callable[[], None] = lambda: None) -> list[SessionReplay]:
    """Replay every transcript under every policy set.

    :param transcripts: the sessions.
    :param policy_sets: the policy sets to compare (each a list of plugin names).
    :param workspace: the user's workspace (only read).
    :param commit: a commit to replay every session at, instead of each session's own.
    :param as_is: replay on the workspace as it is now.
    :param model: the cost model.
    :param on_call: progress callback, once per recorded call and policy set.
    :return: one :class:`SessionReplay` per session and policy set, sessions first.
    """
    results: list[SessionReplay] = []
    for transcript in transcripts:
        changed: list[str] | None = None
        for policies in policy_sets:
            snapshot = _snapshot(workspace, transcript, commit, as_is)
            try:
                if changed is None:
                    changed = changed_since(workspace, snapshot.commit,
                                            read_paths(transcript)) if snapshot.commit else []
                with open_kernel(snapshot, policies) as kernel:
                    outcome = replay_session(kernel, transcript, snapshot, policies,
                                             tool_definition_tokens(kernel), on_call)
            finally:
                snapshot.close()
            outcome.model = model
            outcome.changed_since = list(changed)
            results.append(outcome)
    return results


def totals(results: Sequence[SessionReplay],
           policy_sets: Sequence[Sequence[str]]) -> list[PolicyTotals]:
    """Per policy set, the sum over its sessions."""
    rows = []
    for policies in policy_sets:
        mine = [r for r in results if r.policies == tuple(policies)]
        rows.append(PolicyTotals(
            tuple(policies), len(mine), total(r.cost_then for r in mine),
            total(r.cost_sari for r in mine), sum(len(r.refusals) for r in mine),
            sum(r.replayed for r in mine), sum(r.passed_through for r in mine),
            sum(len(r.uncompared) for r in mine), sum(r.follow_ups for r in mine),
            sum(r.calls_recorded for r in mine)))
    return rows
