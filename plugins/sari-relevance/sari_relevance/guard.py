"""The relevance decision: is a read's target among the latest search's top-K, and not excluded?

Pure logic over a read call, the session's :class:`~sari_relevance.baseline.Baseline`
and the settings; :mod:`sari_relevance.plugin` turns a finding into a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sari_core import NextCall, ReadCall, normalize_path
from sari_relevance.baseline import Baseline, TopEntry
from sari_relevance.exclusions import excluded_by
from sari_relevance.reason_codes import LOW_RELEVANCE_OUTSIDE_TOPK
from sari_relevance.settings import RelevanceSettings

EXCLUDED_PATH = "RELEVANCE_EXCLUDED_PATH"
LEAD = "Not among the top"  # how a warning about a target outside the top-K begins


@dataclass(frozen=True)
class Finding:
    """Why a read looks unrelated, and what to read instead."""

    reason_codes: tuple[str, ...]
    message: str
    hint: str
    next_calls: tuple[NextCall, ...]
    alternatives: tuple[str, ...]
    suggested_next_action: str
    target: str = ""  # what the read was about (its path, or its symbol), for saying it once
    again: str = ""  # the message once the alternatives were given since the latest search

    def said_again(self) -> Finding:
        """The finding for a later target after the same search: the alternatives and their
        reads were given with the first one; repeating them is text the agent pays for."""
        if not self.again:
            return self
        return replace(self, message=self.again, next_calls=())


def _read_target(call: ReadCall, roots: Sequence[Path]) -> tuple[str | None, str]:
    """(workspace-relative path or None for a symbol read without path, label for messages)."""
    if call.mode == "symbol":
        path = normalize_path(call.path, roots) if call.path else None
        return path, f"symbol {call.target!r}" + (f" in {path}" if path else "")
    path = normalize_path(call.target, roots)
    return path, path or call.target


def _is_outside(call: ReadCall, path: str | None, baseline: Baseline | None) -> bool:
    if baseline is None or not baseline.entries:
        return False  # no baseline (no search yet, or it found nothing): nothing to compare with
    if path is not None:
        return not baseline.holds_path(path)
    return not baseline.holds_symbol(call.target)


def alternative_read(entry: TopEntry, context_lines: int, session_id: str | None) -> NextCall:
    """A ready-to-run read of one alternative: a window around its best match."""
    arguments: dict[str, Any]
    if entry.line is not None:
        arguments = {"mode": "snippet", "target": entry.engine_path,
                     "start_line": max(1, entry.line - context_lines),
                     "end_line": max(entry.line, entry.end_line or entry.line) + context_lines}
    else:
        arguments = {"mode": "file", "target": entry.engine_path}
    if entry.candidate_id:
        arguments["candidate_id"] = entry.candidate_id
    if session_id:
        arguments["session_id"] = session_id
    return NextCall(tool="read", arguments=arguments)


def judge(call: ReadCall, baseline: Baseline | None, settings: RelevanceSettings,
          roots: Sequence[Path]) -> Finding | None:
    """None when the read looks relevant; else the finding with ranked alternatives."""
    if call.mode not in settings.checked_modes:
        return None
    path, label = _read_target(call, roots)
    excluded = excluded_by(path, settings.excluded_paths) if path else None
    outside = _is_outside(call, path, baseline)
    if not outside and excluded is None:
        return None

    entries = baseline.entries if baseline is not None else ()
    alternatives = [entry for entry in entries
                    if entry.path != path
                    and excluded_by(entry.path, settings.excluded_paths) is None]
    alternatives = alternatives[:settings.max_alternatives]
    query = baseline.query if baseline is not None else None

    codes = [LOW_RELEVANCE_OUTSIDE_TOPK]
    names = ", ".join(entry.path for entry in alternatives)
    sentences: list[str] = []
    if outside:  # the read's own header names the target: the sentence says why, and where
        sentences.append(f"{LEAD} {settings.top_k} results of the latest search {query!r}"
                         + (f": {names}." if alternatives else "."))
    if excluded is not None:
        codes.append(EXCLUDED_PATH)
        sentences.append(f"Under the excluded path {excluded!r}"
                         + (f"; the latest search {query!r} found {names}."
                            if alternatives and not outside else "."))
    if not alternatives:
        sentences.append("Search the project's own code for what you need.")
    hint = ("Read one of the alternatives in next_calls, or search again if this target is "
            "what you need." if alternatives else
            "Search for the code you need; excluded folders hold vendored or generated files.")
    next_calls = tuple(alternative_read(entry, settings.alternative_context_lines,
                                        call.session_id) for entry in alternatives)
    action = (f"Read {alternatives[0].path} instead (top result of the latest search "
              f"{query!r})." if alternatives else
              "Search the project's own code for what you need.")
    again = (f"{LEAD} {settings.top_k} results of the latest search {query!r} either."
             if outside and excluded is None and alternatives else "")
    return Finding(tuple(codes), " ".join(sentences), hint, next_calls,
                   tuple(entry.path for entry in alternatives), action, label, again)
