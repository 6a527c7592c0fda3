"""Trimming a payload to a line cap and a character cap, keeping a prefix.

The result is always a prefix of the input, cut at a line end where possible:
other policies (aggregation) reconcile what they produced with what was finally
delivered by checking for exactly that prefix property.
"""

from __future__ import annotations

from dataclasses import dataclass

from sari_core import split_lines


@dataclass(frozen=True)
class Trimmed:
    """The outcome of :func:`trim_payload`.

    :ivar text: the kept prefix.
    :ivar lines_total: lines of the input.
    :ivar lines_kept: lines of ``text`` (a partial last line counts).
    :ivar complete_lines: lines of ``text`` kept whole (what a continuation may skip).
    :ivar cut_by: ``"lines"`` or ``"chars"`` when something was cut, else None.
    """

    text: str
    lines_total: int
    lines_kept: int
    complete_lines: int
    cut_by: str | None

    @property
    def was_cut(self) -> bool:
        return self.cut_by is not None


def trim_payload(text: str, max_lines: int, max_chars: int) -> Trimmed:
    """Keep at most ``max_lines`` lines and ``max_chars`` characters of ``text``.

    A character cut falls on the last line end within the cap; only a single line
    longer than the cap is cut inside the line.
    """
    lines = split_lines(text)
    kept = lines[:max_lines]
    cut_by = "lines" if len(kept) < len(lines) else None
    size = sum(len(line) for line in kept)
    if size > max_chars:
        cut_by = "chars"
        total = 0
        whole: list[str] = []
        for line in kept:
            if total + len(line) > max_chars:
                break
            whole.append(line)
            total += len(line)
        # Only a single line longer than the cap is cut inside the line.
        kept = whole or [kept[0][:max_chars]]
    if cut_by is None:
        return Trimmed(text, len(lines), len(lines), len(lines), None)
    kept_text = "".join(kept)
    complete = len(kept) if kept and kept[-1] == lines[len(kept) - 1] else len(kept) - 1
    return Trimmed(kept_text, len(lines), len(kept), complete, cut_by)
