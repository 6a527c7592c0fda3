"""The read gate's decision: serve a read, serve a bounded window of it, or refuse it.

A read is served as asked when it is a precision read (at most ``max_range_lines``
lines), or when the session's own searches returned its target (the same file, or a
candidate naming the symbol) — with or without a ref: the ref is bookkeeping, not a
toll — and, for a wider line range, matched something inside those lines. Any other
read is blind: by default it is served as a window of ``max_range_lines`` lines with one
sentence saying so and the call for the next window; with ``strict`` a read of a file no
search returned is refused, naming the search that would issue refs for it.

Pure logic over a read call, the session's :class:`~sari_refgate.refs.RefStore` and
the settings; :mod:`sari_refgate.plugin` turns a decision into a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sari_core import NextCall, ReadCall, normalize_path
from sari_refgate import calls
from sari_refgate.reason_codes import (
    CANDIDATE_REF_REQUIRED,
    SEARCH_FIRST_REQUIRED,
    SEARCH_REF_REQUIRED,
)
from sari_refgate.refs import CandidateRef, RefStore
from sari_refgate.settings import RefgateSettings

RANGE_TOO_WIDE = "REFGATE_RANGE_TOO_WIDE"
READ_WINDOWED = "REFGATE_READ_WINDOWED"
READ_OUTLINED = "REFGATE_READ_OUTLINED"
DRIFT_OUTLINED = "REFGATE_DRIFT_OUTLINED"


@dataclass(frozen=True)
class Window:
    """A blind read served as its first ``limit`` lines, and the call for the next ones.

    :ivar searched: the session's searches returned the file, but nothing in these lines.
    """

    limit: int
    message: str
    next_calls: tuple[NextCall, ...]
    searched: bool = False


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


def covered(call: ReadCall, target: _Target, store: RefStore,
            lines: tuple[int, int] | None = None) -> bool:
    """Did this session's searches return the read's target (by any valid ref, or at all)?

    :param lines: count only a match inside these lines (a path match stands for the whole
        file); a valid ref the read carries, or the file's outline served, still backs it.
    """
    carries_ref = bool(call.candidate_id or call.bundle_id)
    if carries_ref and not _ref_problems(call, target, store):
        return True
    if target.path is not None and target.path in store.outlined:
        return True
    if lines is None:
        return next(_issued_for(target, store), None) is not None
    first, last = lines
    return any(candidate.line is None
               or (candidate.line <= last
                   and max(candidate.line, candidate.end_line or 0) >= first)
               for candidate in _issued_for(target, store))


def backs(call: ReadCall, store: RefStore, roots: Sequence[Path]) -> bool:
    """Did this session's searches return the read's target? (One scan of its refs: a
    caller that needs the answer twice asks once and hands it to :func:`judge`.)"""
    return covered(call, _target_of(call, roots), store)


def is_blind(call: ReadCall, settings: RefgateSettings, backed: bool) -> bool:
    """A gated read of lines of a file that no search of the session returned."""
    return (call.mode in settings.gated_modes and calls.requested_lines(call) is not None
            and not backed)


def target_path(call: ReadCall, roots: Sequence[Path]) -> str | None:
    """The workspace-relative path a read is about (None: a symbol read without path)."""
    return _target_of(call, roots).path


def judge(call: ReadCall, store: RefStore, settings: RefgateSettings, roots: Sequence[Path],
          line_count: Callable[[], int | None] = lambda: None,
          backed: bool | None = None) -> Refusal | Window | None:
    """None when the read is served as asked; a :class:`Window` to serve it bounded; else
    the :class:`Refusal` (``strict`` only) with its next calls.

    :param line_count: the target file's length, asked only for a blind line-range read.
    :param backed: what :func:`backs` said of this read, when the caller asked already.
    """
    if call.mode not in settings.gated_modes:
        return None
    target = _target_of(call, roots)
    span = precision_span(call)
    limit = settings.max_range_lines
    if span is not None and span <= limit:
        return None
    if covered(call, target, store) if backed is None else backed:
        # A file the searches returned; a range wider than a window is read as asked only
        # where they matched: the first 300 lines of a file matched at line 2,400 are as
        # blind as any file's. Served bounded, never refused: the file was searched.
        # No closed range (a whole file, a symbol): served as asked; the budget bounds it.
        requested = calls.requested_lines(call)
        if requested is None or requested[1] is None \
                or covered(call, target, store, (requested[0], requested[1])):
            return None
        return _window(call, limit, line_count, searched=True)
    if not settings.strict:
        return _window(call, limit, line_count)
    if calls.requested_lines(call) is not None and line_count() is None:
        # No such file (or none the engine can read): its own refusal says so and proposes
        # the path search; a refusal here would propose windows of a file that is not there.
        return None
    return _refusal(call, target, store, settings, span, line_count)


def _window(call: ReadCall, limit: int, line_count: Callable[[], int | None],
            searched: bool = False) -> Window | None:
    """The bounded window a blind read is served as (None: it fits in one window)."""
    requested = calls.requested_lines(call)
    if requested is None:
        return None  # a symbol or diff read is precise by nature; the budget caps its size
    first, last = requested
    total = line_count()
    end = last if total is None else min(total, last if last is not None else total)
    if end is not None and end - first + 1 <= limit:
        return None  # the whole request fits in one window: nothing to bound
    follow = calls.precision_windows(call.model_copy(update={
        "offset": call.skipped_lines + limit + 1, "limit": None if call.limit is None
        else max(1, call.limit - limit)}), limit, 1, total)
    what = "matched these lines" if searched else "returned this file"
    message = f"No search in this session {what}, so a read of it shows at most {limit} lines."
    return Window(limit, message, tuple(follow), searched)


def _refusal(call: ReadCall, target: _Target, store: RefStore, settings: RefgateSettings,
             span: int | None, line_count: Callable[[], int | None]) -> Refusal:
    """Strict mode: the blind read is refused; the first next call is the one to make."""
    problems = _ref_problems(call, target, store)
    limit = settings.max_range_lines
    codes: list[str] = [code for code, _ in problems]
    searched = store.searches > 0
    if not searched:
        codes.insert(0, SEARCH_FIRST_REQUIRED)
    elif not problems:
        codes.append(SEARCH_REF_REQUIRED)
    if span is not None and span > limit:
        codes.append(RANGE_TOO_WIDE)
    needs_length = calls.requested_lines(call) is not None and (span is None or span > limit)
    windows = calls.precision_windows(call, limit, settings.max_windows,
                                      line_count() if needs_length else None)
    search = calls.search_for(call)
    proposals = [search, *windows]
    # What is wrong with a ref the read carried comes first: it is what the caller passed.
    message = " ".join([*(sentence for _, sentence in problems),
                        f"No search in this session returned {target.label}, and this "
                        f"workspace requires one before reading more than {limit} lines."])
    return Refusal(
        reason_codes=tuple(codes),
        error_code=codes[0],
        message=message,
        hint=_hint(False, bool(windows), limit),
        next_calls=tuple(proposals),
        suggested_next_action=_action(target.label, searched, None, bool(windows), search,
                                      limit),
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
