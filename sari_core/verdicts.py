"""Verdicts: what a policy decides, as a value, and the deterministic fold of several.

A hook returns a :class:`Verdict` (or None to abstain). The kernel tags each one
with the plugin that produced it and folds them with :func:`fold_verdicts`:
any block wins; reason codes are de-duplicated and ordered by the registry;
everything else is ordered by (severity, reason rank, plugin name) so the same
verdicts give the same bytes whatever order the plugins were loaded in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sari_core.models import NextCall
from sari_core.reasons import ReasonRegistry

Action = Literal["allow", "warn", "narrow", "block"]
_SEVERITY: dict[str, int] = {"block": 3, "warn": 2, "narrow": 1, "allow": 0}
_BUDGET_SEVERITY: dict[str, int] = {"ok": 0, "soft_limit": 1, "hard_limit": 2}


class Verdict(BaseModel):
    """One plugin's decision about one call.

    :ivar action: ``allow`` (annotate only), ``warn``, ``narrow`` (clamp the request
        through ``narrow``) or ``block`` (refuse; needs ``error_code`` or a reason code).
    :ivar reason_codes: registered reason codes explaining the decision.
    :ivar message: a sentence for the client, actionable.
    :ivar hint: what to do instead.
    :ivar error_code: for blocks, the ``error.code`` of the refusal (defaults to the
        first reason code).
    :ivar narrow: request fields to clamp, e.g. ``{"limit": 300}``; several plugins'
        values for one field fold to the minimum.
    :ivar annotations: JSON data published under ``meta.stabilization.annotations[plugin]``.
    """

    model_config = ConfigDict(frozen=True)

    action: Action = "allow"
    reason_codes: tuple[str, ...] = ()
    message: str = ""
    hint: str = ""
    warnings: tuple[str, ...] = ()
    next_calls: tuple[NextCall, ...] = ()
    error_code: str | None = None
    narrow: dict[str, int] = Field(default_factory=dict)
    budget_state: str | None = None
    suggested_next_action: str | None = None
    preview_degraded: bool = False
    annotations: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def block(cls, *codes: str, message: str, hint: str = "", **kw: Any) -> Verdict:
        return cls(action="block", reason_codes=tuple(codes), message=message, hint=hint, **kw)

    @classmethod
    def warn(cls, *codes: str, message: str, **kw: Any) -> Verdict:
        warnings = kw.pop("warnings", (message,) if message else ())
        return cls(action="warn", reason_codes=tuple(codes), message=message,
                   warnings=tuple(warnings), **kw)

    @classmethod
    def clamp(cls, *codes: str, narrow: Mapping[str, int], message: str = "", **kw: Any) -> Verdict:
        return cls(action="narrow", reason_codes=tuple(codes), narrow=dict(narrow),
                   message=message, **kw)


@dataclass(frozen=True)
class PluginVerdict:
    """A verdict together with the name of the plugin that returned it."""

    plugin: str
    verdict: Verdict


@dataclass
class FoldedVerdict:
    """The kernel's single decision after folding every plugin's verdict."""

    blocked: bool = False
    error_code: str | None = None
    message: str = ""
    hint: str = ""
    blocked_by: str | None = None
    reason_codes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    next_calls: list[NextCall] = field(default_factory=list)
    narrow: dict[str, int] = field(default_factory=dict)
    budget_state: str | None = None
    suggested_next_action: str | None = None
    preview_degraded: bool = False
    annotations: dict[str, dict[str, Any]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return self == _EMPTY

    def merge(self, other: FoldedVerdict, registry: ReasonRegistry) -> FoldedVerdict:
        """Combine two folds (enter and exit of one call) into one, still ordered."""
        if other.is_empty():
            return self
        if self.is_empty():
            return other
        first, second = (self, other)
        blocked_source = first if first.blocked else other
        return FoldedVerdict(
            blocked=first.blocked or second.blocked,
            error_code=blocked_source.error_code,
            message=blocked_source.message or first.message or second.message,
            hint=blocked_source.hint or first.hint or second.hint,
            blocked_by=blocked_source.blocked_by,
            reason_codes=registry.order([*first.reason_codes, *second.reason_codes]),
            warnings=_unique([*first.warnings, *second.warnings]),
            next_calls=_unique([*first.next_calls, *second.next_calls]),
            narrow={**first.narrow, **second.narrow},
            budget_state=_worst_budget(first.budget_state, second.budget_state),
            suggested_next_action=blocked_source.suggested_next_action
            or first.suggested_next_action or second.suggested_next_action,
            preview_degraded=first.preview_degraded or second.preview_degraded,
            annotations={**first.annotations, **second.annotations},
        )


_EMPTY = FoldedVerdict()


def fold_verdicts(items: Sequence[PluginVerdict], registry: ReasonRegistry) -> FoldedVerdict:
    """Fold plugin verdicts into one decision, independent of the input order."""
    if not items:
        return FoldedVerdict()

    def rank(item: PluginVerdict) -> tuple[int, tuple[int, str], str]:
        codes = item.verdict.reason_codes
        first = min((registry.rank_of(c) for c in codes), default=(1 << 31, ""))
        return (-_SEVERITY[item.verdict.action], first, item.plugin)

    ordered_items = sorted(items, key=rank)
    folded = FoldedVerdict()
    codes: list[str] = []
    for item in ordered_items:
        verdict = item.verdict
        codes.extend(verdict.reason_codes)
        folded.warnings.extend(verdict.warnings)
        folded.next_calls.extend(verdict.next_calls)
        for key, value in verdict.narrow.items():
            folded.narrow[key] = min(value, folded.narrow.get(key, value))
        folded.budget_state = _worst_budget(folded.budget_state, verdict.budget_state)
        if folded.suggested_next_action is None and verdict.suggested_next_action:
            folded.suggested_next_action = verdict.suggested_next_action
        folded.preview_degraded |= verdict.preview_degraded
        if verdict.annotations:
            folded.annotations[item.plugin] = dict(verdict.annotations)
        if verdict.action == "block" and not folded.blocked:
            folded.blocked = True
            folded.blocked_by = item.plugin
            folded.error_code = verdict.error_code or (
                registry.order(verdict.reason_codes)[0] if verdict.reason_codes else "BLOCKED"
            )
            folded.message = verdict.message
            folded.hint = verdict.hint
    if not folded.blocked:
        first_with_message = next((i.verdict for i in ordered_items if i.verdict.message), None)
        if first_with_message is not None:
            folded.message = first_with_message.message
            folded.hint = first_with_message.hint
    folded.reason_codes = registry.order(codes)
    folded.warnings = _unique(folded.warnings)
    folded.next_calls = _unique(folded.next_calls)
    folded.annotations = dict(sorted(folded.annotations.items()))
    return folded


def _unique(values: Iterable[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for value in values:
        key = value.sort_key() if isinstance(value, NextCall) else value
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _worst_budget(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if _BUDGET_SEVERITY.get(a, 0) >= _BUDGET_SEVERITY.get(b, 0) else b
