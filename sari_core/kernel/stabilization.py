"""Keys plugins publish at the top level of ``meta.stabilization``.

A plugin annotates a call (``Verdict(annotations={...})``); annotations appear under
``meta.stabilization.annotations[<plugin>]``. A key the plugin registered as a
:class:`StabilizationField` (``sari_register_stabilization_fields``) is lifted out
of the annotations to the top of the block instead, with a default when no plugin
set it and a stated fold when several did. The kernel knows no such key itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class StabilizationField:
    """A top-level key of ``meta.stabilization`` that a plugin fills from its annotations.

    :ivar key: the key, e.g. ``budget_state``; also the annotation key it is taken from.
    :ivar default: published when no plugin set it; None leaves the key out.
    :ivar placement: ``first`` (before every kernel key) or ``last`` (after
        ``next_calls``; several ``last`` keys by name).
    :ivar severity: the values from mildest to worst: when several plugins set the key,
        the worst wins. Empty: the first plugin by name wins.
    """

    key: str
    default: Any = None
    placement: Literal["first", "last"] = "last"
    severity: tuple[str, ...] = ()


class StabilizationFields:
    """Every registered field; lifts their values out of a stabilization block's annotations."""

    def __init__(self) -> None:
        self._fields: dict[str, tuple[str, StabilizationField]] = {}
        self._first: list[StabilizationField] = []
        self._last: list[StabilizationField] = []

    def register(self, spec: StabilizationField, *, owner: str) -> None:
        known = self._fields.get(spec.key)
        if known is not None and known[1] != spec:
            raise ValueError(f"stabilization key {spec.key!r} of plugin {owner!r} is already "
                             f"registered differently by {known[0]!r}")
        self._fields[spec.key] = (owner, spec)
        fields = [field for _, field in self._fields.values()]
        self._first = sorted((f for f in fields if f.placement == "first"), key=lambda f: f.key)
        self._last = sorted((f for f in fields if f.placement == "last"), key=lambda f: f.key)

    def __bool__(self) -> bool:
        return bool(self._fields)

    def keys(self) -> Iterable[str]:
        return self._fields.keys()

    def apply(self, block: dict[str, Any]) -> dict[str, Any]:
        """The block with registered keys lifted out of its annotations, in place order."""
        values: dict[str, Any] = {}
        annotations = block.get("annotations")
        remaining: dict[str, dict[str, Any]] = {}
        if annotations:
            for plugin in sorted(annotations):
                data = annotations[plugin]
                for key, value in data.items():
                    if key in self._fields and value is not None:
                        values[key] = self._fold(key, values.get(key), value)
            for plugin, data in annotations.items():
                kept = {k: v for k, v in data.items() if k not in self._fields}
                if kept:
                    remaining[plugin] = kept
        out: dict[str, Any] = {}
        self._publish(out, self._first, values)
        for key, value in block.items():
            if key != "annotations" and key not in self._fields:
                out[key] = value
        self._publish(out, self._last, values)
        if remaining:
            out["annotations"] = remaining
        return out

    def _fold(self, key: str, current: Any, value: Any) -> Any:
        if current is None:
            return value
        order = self._fields[key][1].severity
        if not order:
            return current  # the first plugin by name keeps it
        rank = {name: index for index, name in enumerate(order)}
        return value if rank.get(value, 0) > rank.get(current, 0) else current

    @staticmethod
    def _publish(out: dict[str, Any], fields: list[StabilizationField],
                 values: dict[str, Any]) -> None:
        for field in fields:
            value = values.get(field.key, field.default)
            if value is not None:
                out[field.key] = value
