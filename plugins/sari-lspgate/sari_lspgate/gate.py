"""The gate of one session: which errors its edits introduced and are still open.

An error is *open* from the change that introduced it until a later validation of its
file no longer finds it. Errors that were already there before a change never open.
The session is gated while any error is open. The state is plain data, so the Claude
Code hook can keep it in a JSON file between its runs.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sari_lspgate.diagnostics import (
    IDENTITY_MAP,
    Diagnostic,
    Identity,
    LineMap,
    compare,
    gating,
)
from sari_lspgate.validators import ValidatorResult

UNAVAILABLE_CODE = "LSP_UNAVAILABLE"


class GateState:
    """Open errors by file and validator; thread-safe (a session's calls may overlap)."""

    def __init__(self) -> None:
        self._open: dict[str, dict[str, list[Diagnostic]]] = {}
        self._lock = threading.RLock()

    @property
    def gated(self) -> bool:
        with self._lock:
            return bool(self._open)

    @property
    def files(self) -> list[str]:
        with self._lock:
            return sorted(self._open)

    def open_errors(self) -> list[Diagnostic]:
        with self._lock:
            return sorted(d for by_source in self._open.values() for items in by_source.values()
                          for d in items)

    def open_for(self, path: str, source: str) -> list[Diagnostic]:
        with self._lock:
            return list(self._open.get(path, {}).get(source, []))

    def set_for(self, path: str, source: str, diagnostics: Sequence[Diagnostic]) -> None:
        with self._lock:
            by_source = self._open.setdefault(path, {})
            if diagnostics:
                by_source[source] = sorted(diagnostics)
            else:
                by_source.pop(source, None)
            if not by_source:
                self._open.pop(path, None)

    def forget(self, path: str) -> None:
        """The file is gone: its errors went with it."""
        with self._lock:
            self._open.pop(path, None)

    def to_json(self) -> dict[str, Any]:
        return {"open": [d.to_json() for d in self.open_errors()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GateState:
        state = cls()
        grouped: dict[tuple[str, str], list[Diagnostic]] = {}
        for item in data.get("open", []):
            diagnostic = Diagnostic.from_json(item)
            grouped.setdefault((diagnostic.path, diagnostic.source), []).append(diagnostic)
        for (path, source), items in grouped.items():
            state.set_for(path, source, items)
        return state


@dataclass
class ChangeOutcome:
    """What validating one change found.

    :ivar introduced: errors (gating severities) the change brought in.
    :ivar preexisting: gating-severity errors that were there before and do not gate.
    :ivar unavailable: validators that could not check the change.
    """

    path: str
    results: list[ValidatorResult] = field(default_factory=list)
    introduced: list[Diagnostic] = field(default_factory=list)
    preexisting: list[Diagnostic] = field(default_factory=list)
    unavailable: list[ValidatorResult] = field(default_factory=list)


def unavailable_diagnostic(path: str, result: ValidatorResult) -> Diagnostic:
    """What fail-closed gates on when a validator could not check a file."""
    return Diagnostic(path=path, line=1, column=1, severity="error", source=result.validator,
                      code=UNAVAILABLE_CODE,
                      message=f"{result.validator} could not validate this file: {result.reason}")


def apply_results(state: GateState, path: str, line_map: LineMap,
                  results: Sequence[ValidatorResult], severities: Sequence[str],
                  failure_mode: str, *, record: bool = True) -> ChangeOutcome:
    """Fold one change's validator results into the gate (unless ``record`` is False).

    :param path: the changed file (display path).
    :param line_map: where the changed file's old lines went.
    :param severities: diagnostic severities that gate.
    :param failure_mode: ``open`` or ``closed`` for validators that could not run.
    """
    outcome = ChangeOutcome(path=path, results=list(results))
    for result in results:
        if result.status != "ok":
            outcome.unavailable.append(result)
            pseudo = [unavailable_diagnostic(path, result)] if failure_mode == "closed" else []
            outcome.introduced.extend(pseudo)
            if record:
                state.set_for(path, result.validator, pseudo)
            continue
        for file in result.files:
            now = gating((d for d in result.current if d.path == file), severities)
            previously_open = state.open_for(file, result.validator)
            if result.baseline is None:
                if file != path:
                    continue  # unknown baseline: only the changed file is judged
                # Nothing is known from before but what was already open.
                before = previously_open
            else:
                before = gating((d for d in result.baseline if d.path == file), severities)
            comparison = compare(before, now, line_map if file == path else IDENTITY_MAP)
            still_open = _still_open(comparison.carried, previously_open)
            outcome.introduced.extend(comparison.introduced)
            outcome.preexisting.extend(new for _, new in comparison.carried
                                       if not any(new is kept for kept in still_open))
            if record:
                state.set_for(file, result.validator, [*comparison.introduced, *still_open])
    outcome.introduced.sort()
    outcome.preexisting.sort()
    return outcome


def _still_open(carried: list[tuple[Diagnostic, Diagnostic]],
                previously_open: list[Diagnostic]) -> list[Diagnostic]:
    """The carried diagnostics that continue an open one (matched by identity and count)."""
    budget: Counter[Identity] = Counter(d.identity for d in previously_open)
    kept = []
    for _, new in carried:
        if budget[new.identity] > 0:
            budget[new.identity] -= 1
            kept.append(new)
    return kept
