"""The read gate's decision: is this read backed by a ref of its session, or precise enough?

Pure logic over a read call, the session's :class:`~sari_refgate.refs.RefStore` and
the settings; :mod:`sari_refgate.plugin` turns a refusal into a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sari_core.models import NextCall, ReadCall
from sari_core.targets import normalize_path
from sari_refgate import calls
from sari_refgate.reason_codes import (
    CANDIDATE_REF_REQUIRED,
    SEARCH_FIRST_REQUIRED,
    SEARCH_REF_REQUIRED,
)
from sari_refgate.refs import CandidateRef, RefStore
from sari_refgate.settings import RefgateSettings

RANGE_TOO_WIDE = "REFGATE_RANGE_TOO_WIDE"
GUIDANCE = "Use search results (candidate/bundle ref) or precision read path+range."


@dataclass(frozen=True)
class Refusal:
    """Why a read is not served, and the calls that would be."""

    reason_codes: tuple[str, ...]
    error_code: str
    message: str
    hint: str
    next_calls: tuple[NextCall, ...]
    suggested_next_action: str


@dataclass(frozen=True)
class _Target:
    """What a read is about, in the form refs are compared with."""

    path: str | None  # workspace-relative path, or None for a symbol read without path
    symbol: str | None
    label: str

    def fits(self, candidate: CandidateRef) -> bool:
        if self.path is not None:
            return candidate.path == self.path
        return self.symbol is not None and candidate.names_symbol(self.symbol)


def _target_of(call: ReadCall, roots: Sequence[Path]) -> _Target:
    if call.mode == "symbol":
        path = normalize_path(call.path, roots) if call.path else None
        label = f"symbol {call.target!r}" + (f" in {path}" if path else "")
        return _Target(path, call.target, label)
    path = normalize_path(call.target, roots)
    return _Target(path, None, path or call.target)


def precision_span(call: ReadCall) -> int | None:
    """Lines a precision read covers (context included), or None if it is not one."""
    requested = calls.requested_lines(call)
    if requested is None:
        return None
    first, last = requested
    return None if last is None else max(0, last - first + 1)


def _ref_problems(call: ReadCall, target: _Target, store: RefStore) -> list[tuple[str, str]]:
    """(reason code, sentence) for each ref the read carries that does not hold."""
    problems: list[tuple[str, str]] = []
    if call.candidate_id:
        candidate = store.candidate(call.candidate_id)
        if candidate is None:
            problems.append((CANDIDATE_REF_REQUIRED,
                             f"candidate_id {call.candidate_id!r} was not issued to this "
                             "session (unknown, expired, or from another session)."))
        elif not target.fits(candidate):
            problems.append((CANDIDATE_REF_REQUIRED,
                             f"candidate_id {call.candidate_id!r} refers to {candidate.path}, "
                             f"not to {target.label}."))
    if call.bundle_id:
        bundle = store.bundle(call.bundle_id)
        if bundle is None:
            problems.append((SEARCH_REF_REQUIRED,
                             f"bundle_id {call.bundle_id!r} was not issued to this session "
                             "(unknown, expired, or from another session)."))
        elif not any(target.fits(candidate) for candidate in bundle.candidates):
            problems.append((SEARCH_REF_REQUIRED,
                             f"bundle_id {call.bundle_id!r} (search {bundle.query!r}) has no "
                             f"result for {target.label}."))
    return problems


def _issued_for(target: _Target, store: RefStore) -> Iterator[CandidateRef]:
    for bundle in store.newest_first():
        for candidate in bundle.candidates:
            if target.fits(candidate):
                yield candidate


def judge(call: ReadCall, store: RefStore, settings: RefgateSettings, roots: Sequence[Path],
          line_count: Callable[[], int | None] = lambda: None) -> Refusal | None:
    """None when the read may be served; else the refusal with its next calls.

    :param line_count: the target file's length, asked only to fit proposed windows.
    """
    if call.mode not in settings.gated_modes:
        return None
    target = _target_of(call, roots)
    problems = _ref_problems(call, target, store)
    carries_ref = bool(call.candidate_id or call.bundle_id)
    if carries_ref and not problems:
        return None
    span = precision_span(call)
    limit = settings.max_range_lines
    if not carries_ref and span is not None and span <= limit:
        return None

    codes: list[str] = [code for code, _ in problems]
    sentences = [sentence for _, sentence in problems]
    searched = store.searches > 0
    if not searched:
        codes.insert(0, SEARCH_FIRST_REQUIRED)
        sentences.insert(0, f"No search has run in this session yet, so there is no ref to "
                            f"read {target.label} through.")
    elif not problems:
        codes.append(SEARCH_REF_REQUIRED)
        sentences.append(f"This read of {target.label} carries no search ref.")
    if span is not None and span > limit:
        codes.append(RANGE_TOO_WIDE)
        sentences.append(f"A read without a ref may span at most {limit} lines; this one "
                         f"spans {span}.")

    ref_read = next((calls.with_candidate(call, c.candidate_id)
                     for c in _issued_for(target, store)), None)
    needs_length = calls.requested_lines(call) is not None and (span is None or span > limit)
    windows = calls.precision_windows(call, limit, settings.max_windows,
                                      line_count() if needs_length else None)
    search = calls.search_for(call)
    if not searched:
        proposals = [search, *windows]
    else:
        proposals = [*([ref_read] if ref_read else []), *windows, search]
    action = _action(target.label, searched, ref_read, bool(windows), search, limit)
    return Refusal(
        reason_codes=tuple(codes),
        error_code=codes[0],
        message=" ".join([*sentences, GUIDANCE]),
        hint=_hint(ref_read is not None, bool(windows), limit),
        next_calls=tuple(proposals),
        suggested_next_action=action,
    )


def _action(label: str, searched: bool, ref_read: NextCall | None, has_windows: bool,
            search: NextCall, limit: int) -> str:
    """``suggested_next_action``: the single best step, as a sentence."""
    then = "then read through a candidate_id from its results."
    if not searched:
        return f"Search first (search {search.arguments}), {then}"
    if ref_read is not None:
        return (f"Repeat the read with candidate_id {ref_read.arguments['candidate_id']!r}, "
                f"issued to this session for {label}.")
    if has_windows:
        return f"Read {label} in windows of at most {limit} lines, or search and {then[5:]}"
    return f"Search (search {search.arguments}), {then}"


def _hint(has_ref_read: bool, has_windows: bool, limit: int) -> str:
    steps: list[str] = []
    if has_ref_read:
        steps.append("the read with this session's candidate_id")
    if has_windows:
        steps.append(f"windows of at most {limit} lines")
    steps.append("a search that issues refs")
    return "Run one of next_calls: " + ", ".join(steps) + "."
