"""Deterministic structural compression of one read against what the session holds.

A read is a run of numbered lines of one file version. Each maximal run of lines
that an earlier item already delivered (same file content hash) becomes one
reference line, when that line is shorter than the text it stands for; all other
lines are kept verbatim. Nothing is summarised: the references name the item and
the lines, so the full read can be rebuilt byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Segment:
    """Lines ``start..end`` of the read: a reference to ``item``, or verbatim (item None)."""

    start: int
    end: int
    item: int | None = None
    searched: bool = False  # ``item`` is lines a search answer showed

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"lines": [self.start, self.end]}
        if self.item is not None:
            data["item"] = self.item
        if self.searched:
            data["search"] = True
        return data


@dataclass(frozen=True)
class Compressed:
    """The rewritten payload.

    :ivar text: what the client receives.
    :ivar segments: the read's lines in order, each verbatim or a reference.
    :ivar verbatim: ``(line number, end offset in text)`` of each line kept verbatim,
        so the caller can tell which of them survived a later trim of the text.
    :ivar lines_referenced: lines replaced by references.
    """

    text: str
    segments: tuple[Segment, ...]
    verbatim: tuple[tuple[int, int], ...]
    lines_referenced: int


def reference_line(path: str, start: int, end: int, item: int) -> str:
    """The line that stands for lines ``start..end`` already delivered in ``item``."""
    span = f"line {start}" if start == end else f"lines {start}-{end}"
    return (f"[sari] {path} {span} unchanged: already delivered in context item {item}, "
            "not repeated.\n")


def _runs(first_line: int, count: int, owners: Mapping[int, int]) -> list[Segment]:
    """Maximal runs of consecutive lines with the same owner (None = not delivered)."""
    runs: list[Segment] = []
    for number in range(first_line, first_line + count):
        owner = owners.get(number)
        last = runs[-1] if runs else None
        if last is not None and last.item == owner and last.end == number - 1:
            runs[-1] = Segment(last.start, number, owner)
        else:
            runs.append(Segment(number, number, owner))
    return runs


def compress(path: str, first_line: int, lines: list[str], owners: Mapping[int, int],
             searched: frozenset[int] = frozenset()) -> Compressed:
    """Replace already delivered runs of ``lines`` (numbered from ``first_line``).

    :param owners: line number -> item that delivered it, for the same file version.
    :param searched: the items that are lines a search answer showed (said so in the
        segments, so the reference can say where the lines were shown).
    """
    pieces: list[str] = []
    segments: list[Segment] = []
    verbatim: list[tuple[int, int]] = []
    offset = 0
    referenced = 0
    for run in _runs(first_line, len(lines), owners):
        run_lines = lines[run.start - first_line:run.end - first_line + 1]
        if run.item is not None:
            ref = reference_line(path, run.start, run.end, run.item)
            if len(ref) < sum(len(line) for line in run_lines):
                pieces.append(ref)
                offset += len(ref)
                segments.append(Segment(run.start, run.end, run.item,
                                        run.item in searched))
                referenced += run.end - run.start + 1
                continue
        for number, line in enumerate(run_lines, run.start):
            pieces.append(line)
            offset += len(line)
            verbatim.append((number, offset))
        previous = segments[-1] if segments else None
        if previous is not None and previous.item is None:
            segments[-1] = Segment(previous.start, run.end)
        else:
            segments.append(Segment(run.start, run.end))
    return Compressed("".join(pieces), tuple(segments), tuple(verbatim), referenced)
