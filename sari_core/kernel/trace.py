"""``SARI_TRACE_PLUGINS=1``: one line per hook call, through pluggy's call monitoring.

Each line names the hook, the plugins it ran (in call order), what each returned
(a verdict's action and reason codes, a failure, or the type of a value) and the
time the whole call took.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TextIO

import pluggy


class TracedManager(Protocol):
    """What tracing uses of the plugin manager (the manager, which turns tracing on, is
    the module above this one)."""

    def implementers(self, hook_name: str) -> list[str]: ...

    def add_hookcall_monitoring(self, before: Callable[..., None], after: Callable[..., None]
                                ) -> Callable[[], None]: ...


TRACE_ENV = "SARI_TRACE_PLUGINS"


def trace_requested() -> bool:
    return os.environ.get(TRACE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def describe(value: Any) -> str:
    """A short text for one plugin's answer."""
    failure = getattr(value, "failure", None)
    if failure:
        return f"raised {failure}"
    value = getattr(value, "value", value)
    action = getattr(value, "action", None)
    if isinstance(action, str):
        codes = ",".join(getattr(value, "reason_codes", ()))
        return f"{action}({codes})" if codes else action
    return type(value).__name__


def enable_trace(pm: TracedManager, stream: TextIO | None = None) -> Callable[[], None]:
    """Print every hook call of ``pm`` to ``stream`` (stderr); returns the undo function."""
    out = stream if stream is not None else sys.stderr
    started: list[int] = []

    def before(hook_name: str, impls: Sequence[pluggy.HookImpl],
               kwargs: Mapping[str, object]) -> None:
        started.append(time.perf_counter_ns())

    def after(outcome: pluggy.Result[Any], hook_name: str, impls: Sequence[pluggy.HookImpl],
              kwargs: Mapping[str, object]) -> None:
        micros = (time.perf_counter_ns() - started.pop()) / 1000.0
        plugins = ", ".join(pm.implementers(hook_name)) or "-"
        if outcome.exception is not None:
            answers = f"kernel error {type(outcome.exception).__name__}: {outcome.exception}"
        else:
            result = outcome.get_result()
            items = result if isinstance(result, list) else [] if result is None else [result]
            answers = "; ".join(f"{getattr(item, 'plugin', '?')}: {describe(item)}"
                                for item in items) or "all abstained"
        print(f"sari trace: {hook_name} [{plugins}] -> {answers} ({micros:.1f} µs)", file=out)

    return pm.add_hookcall_monitoring(before, after)
