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

from sari_core.kernel.reasons import ReasonRegistry
from sari_core.models import NextCall

Action = Literal["allow", "warn", "narrow", "block"]
_SEVERITY: dict[str, int] = {"block": 3, "warn": 2, "narrow": 1, "allow": 0}


class Verdict(BaseModel):
    """One plugin's decision about one call.

    Build one with :meth:`allow`, :meth:`warn`, :meth:`narrow` or :meth:`block`; an
    unknown or misspelt argument is an error, never silently dropped.

    :ivar action: ``allow`` (annotate only), ``warn``, ``narrow`` (clamp request
        fields to ``narrow_to``) or ``block`` (refuse; needs ``error_code`` or a reason code).
    :ivar reason_codes: registered reason codes explaining the decision.
    :ivar message: a sentence for the client, actionable.
    :ivar hint: what to do instead.
    :ivar warnings: warning sentences shown in ``meta.stabilization.warnings``.
    :ivar next_calls: ready-to-run calls offered to the client.
    :ivar error_code: for blocks, the ``error.code`` of the refusal (defaults to the
        first reason code).
    :ivar narrow_to: request fields to clamp, e.g. ``{"limit": 300}``; several plugins'
        values for one field fold to the minimum.
    :ivar suggested_next_action: one sentence saying what the client should do next.
    :ivar preview_degraded: the plugin shortened or replaced the payload.
    :ivar annotations: JSON data published under ``meta.stabilization.annotations[plugin]``
        (keys a plugin registered as stabilization fields are published at the top level).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Action = "allow"
    reason_codes: tuple[str, ...] = ()
    message: str = ""
    hint: str = ""
    warnings: tuple[str, ...] = ()
    next_calls: tuple[NextCall, ...] = ()
    error_code: str | None = None
    narrow_to: dict[str, int] = Field(default_factory=dict)
    suggested_next_action: str | None = None
    preview_degraded: bool = False
    annotations: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def allow(cls, *codes: str, message: str = "", next_calls: Sequence[NextCall] = (),
              suggested_next_action: str | None = None, preview_degraded: bool = False,
              annotations: Mapping[str, Any] | None = None) -> Verdict:
        """Let the call through, attaching reason codes, next calls or annotations."""
        return cls(action="allow", reason_codes=codes, message=message,
                   next_calls=tuple(next_calls), suggested_next_action=suggested_next_action,
                   preview_degraded=preview_degraded, annotations=dict(annotations or {}))

    @classmethod
    def warn(cls, *codes: str, message: str, hint: str = "",
             warnings: Sequence[str] | None = None, next_calls: Sequence[NextCall] = (),
             suggested_next_action: str | None = None, preview_degraded: bool = False,
             annotations: Mapping[str, Any] | None = None) -> Verdict:
        """Serve the call with a warning (``warnings`` defaults to ``[message]``)."""
        shown = tuple(warnings) if warnings is not None else ((message,) if message else ())
        return cls(action="warn", reason_codes=codes, message=message, hint=hint,
                   warnings=shown, next_calls=tuple(next_calls),
                   suggested_next_action=suggested_next_action,
                   preview_degraded=preview_degraded, annotations=dict(annotations or {}))

    @classmethod
    def narrow(cls, *codes: str, to: Mapping[str, int], message: str = "",
               warnings: Sequence[str] = (), next_calls: Sequence[NextCall] = (),
               annotations: Mapping[str, Any] | None = None) -> Verdict:
        """Serve a smaller request: each field of ``to`` is clamped to at most its value."""
        return cls(action="narrow", reason_codes=codes, narrow_to=dict(to), message=message,
                   warnings=tuple(warnings), next_calls=tuple(next_calls),
                   annotations=dict(annotations or {}))

    @classmethod
    def block(cls, *codes: str, message: str, hint: str = "", error_code: str | None = None,
              warnings: Sequence[str] = (), next_calls: Sequence[NextCall] = (),
              suggested_next_action: str | None = None,
              annotations: Mapping[str, Any] | None = None) -> Verdict:
        """Refuse the call; ``error_code`` defaults to the first reason code."""
        return cls(action="block", reason_codes=codes, message=message, hint=hint,
                   error_code=error_code, warnings=tuple(warnings), next_calls=tuple(next_calls),
                   suggested_next_action=suggested_next_action,
                   annotations=dict(annotations or {}))


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
    narrow_to: dict[str, int] = field(default_factory=dict)
    suggested_next_action: str | None = None
    preview_degraded: bool = False
    annotations: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The next calls the blocking policies proposed (also in next_calls): the others' assumed
    # the call would be served, and the kernel drops those that repeat the blocked call.
    blockers_next_calls: list[NextCall] = field(default_factory=list)

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
            narrow_to=_min_merge(first.narrow_to, second.narrow_to),
            suggested_next_action=blocked_source.suggested_next_action
            or first.suggested_next_action or second.suggested_next_action,
            preview_degraded=first.preview_degraded or second.preview_degraded,
            annotations=_merge_annotations(first.annotations, second.annotations),
            blockers_next_calls=_unique([*first.blockers_next_calls,
                                         *second.blockers_next_calls]),
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
        for key, value in verdict.narrow_to.items():
            folded.narrow_to[key] = min(value, folded.narrow_to.get(key, value))
        if folded.suggested_next_action is None and verdict.suggested_next_action:
            folded.suggested_next_action = verdict.suggested_next_action
        folded.preview_degraded |= verdict.preview_degraded
        if verdict.annotations:
            folded.annotations[item.plugin] = dict(verdict.annotations)
        if verdict.action == "block":
            folded.blockers_next_calls.extend(verdict.next_calls)
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
    folded.blockers_next_calls = _unique(folded.blockers_next_calls)
    folded.annotations = dict(sorted(folded.annotations.items()))
    return folded


def _min_merge(first: dict[str, int], second: dict[str, int]) -> dict[str, int]:
    """Two folds' narrowing: each field takes the smaller limit."""
    merged = dict(first)
    for key, value in second.items():
        merged[key] = min(value, merged.get(key, value))
    return merged


def _merge_annotations(first: dict[str, dict[str, Any]], second: dict[str, dict[str, Any]]
                       ) -> dict[str, dict[str, Any]]:
    """A plugin's enter and exit annotations side by side (exit wins on the same key)."""
    merged = {plugin: dict(data) for plugin, data in first.items()}
    for plugin, data in second.items():
        merged[plugin] = {**merged.get(plugin, {}), **data}
    return merged


def _unique(values: Iterable[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for value in values:
        key = value.sort_key() if isinstance(value, NextCall) else value
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out
