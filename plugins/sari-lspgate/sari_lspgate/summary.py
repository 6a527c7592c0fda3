"""The gate's words: a concise, de-duplicated summary and ready-to-run reads of the failures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sari_core import NextCall
from sari_lspgate.diagnostics import Diagnostic

SNIPPET_CONTEXT_LINES = 3


@dataclass(frozen=True)
class GateSummary:
    """What the client is told about open errors: count, files, examples and one text."""

    count: int = 0
    files: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "files": self.files, "examples": self.examples,
                "text": self.text}


def unique(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per (file, line, headline): two validators saying the same, or a
    cascade of identical messages on one line, count once."""
    seen: set[tuple[str, int, str]] = set()
    out = []
    for diagnostic in sorted(diagnostics):
        key = (diagnostic.path, diagnostic.line, diagnostic.headline)
        if key not in seen:
            seen.add(key)
            out.append(diagnostic)
    return out


def summarize(diagnostics: Sequence[Diagnostic], max_examples: int, *,
              lead: str = "new error") -> GateSummary:
    """``N new errors in a.py, b.py:`` followed by up to ``max_examples`` ``file:line - message``."""
    items = unique(diagnostics)
    if not items:
        return GateSummary()
    files = sorted({d.path for d in items})
    examples = [d.example() for d in items[:max_examples]]
    noun = lead if len(items) == 1 else f"{lead}s"
    lines = [f"{len(items)} {noun} in {', '.join(files)}:"]
    lines += [f"- {example}" for example in examples]
    if len(items) > max_examples:
        lines.append(f"- ... and {len(items) - max_examples} more")
    return GateSummary(count=len(items), files=files, examples=examples, text="\n".join(lines))


def failure_reads(diagnostics: Sequence[Diagnostic], max_calls: int,
                  session_id: str | None) -> list[NextCall]:
    """Snippet reads around the failing lines, in summary order; windows of one file that
    overlap are merged into one read."""
    windows: list[list[Any]] = []  # [path, start, end]
    for diagnostic in unique(diagnostics):
        if diagnostic.path.startswith("/"):
            continue  # outside the workspace: not readable through Sari
        start = max(1, diagnostic.line - SNIPPET_CONTEXT_LINES)
        end = diagnostic.line + SNIPPET_CONTEXT_LINES
        last = windows[-1] if windows else None
        if last is not None and last[0] == diagnostic.path and start <= last[2] + 1:
            last[2] = max(last[2], end)
        elif len(windows) < max_calls:
            windows.append([diagnostic.path, start, end])
    calls = []
    for path, start, end in windows:
        arguments: dict[str, Any] = {"mode": "snippet", "target": path, "start_line": start,
                                     "end_line": end}
        if session_id:
            arguments["session_id"] = session_id
        calls.append(NextCall(tool="read", arguments=arguments))
    return calls
