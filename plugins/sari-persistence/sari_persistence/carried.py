"""What an earlier compaction summary carries into the next one.

After a compaction the conversation starts from Sari's summary frame, so the next
compaction's window holds that summary and only what happened since. Read alone,
those frames lose the session's goal, the files edited before and the executions
that mattered; a retried compaction (the first attempt failed after its summary was
stored) would see nothing but client bookkeeping and store an empty summary over a
good one. The fields of the latest earlier summary are read back here, so the new
summary starts from them: files and key executions accumulate, and goal, task and
pending files are kept until the conversation states new ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

HEADER = "=== COMPACTION SUMMARY ==="


class _Frame(Protocol):
    @property
    def role(self) -> str: ...

    @property
    def content(self) -> str: ...

    @property
    def execution_id(self) -> str | None: ...

    @property
    def sequence_index(self) -> int: ...

_FIELDS = {
    "Goal": "goal", "Current task": "task", "Files modified": "modified",
    "Files mentioned": "mentioned", "Files pending": "pending",
    "Key tool executions": "key_executions",
}


@dataclass(frozen=True)
class PriorSummary:
    """The fields of an earlier summary; empty values where it had placeholders."""

    goal: str | None = None
    task: str | None = None
    pending: str | None = None
    modified: frozenset[str] = frozenset()
    mentioned: frozenset[str] = frozenset()
    key_executions: tuple[str, ...] = field(default_factory=tuple)


def _items(value: str) -> list[str]:
    inner = value.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        return []
    return [item.strip() for item in inner[1:-1].split(", ") if item.strip()]


def parse_summary(text: str) -> PriorSummary | None:
    """The fields of a summary block (None when ``text`` is not one)."""
    if not text.startswith(HEADER):
        return None
    values: dict[str, str] = {}
    for line in text.splitlines()[1:]:
        name, separator, value = line.partition(": ")
        if separator and name in _FIELDS:
            values[_FIELDS[name]] = value.strip()
    return PriorSummary(
        goal=values.get("goal"),
        task=values.get("task"),
        pending=values.get("pending"),
        modified=frozenset(_items(values.get("modified", ""))),
        mentioned=frozenset(_items(values.get("mentioned", ""))),
        key_executions=tuple(_items(values.get("key_executions", ""))),
    )


def latest_prior(frames: Sequence[_Frame]) -> PriorSummary | None:
    """The newest earlier Sari summary among ``frames`` (in sequence order), if any."""
    for frame in sorted(frames, key=lambda item: item.sequence_index, reverse=True):
        if frame.role == "tool" and frame.execution_id is None:
            prior = parse_summary(frame.content)
            if prior is not None:
                return prior
    return None
