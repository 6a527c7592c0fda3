"""Reason codes: the fixed vocabulary every policy decision is expressed in.

The enum is authoritative for semantics; ``reason_registry.json`` only adds UX
metadata (description, severity, next-call template) and can never redefine a
code. Plugins extend the vocabulary through ``sari_register_reason_codes``.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

Severity = Literal["info", "warning", "error"]


class ReasonCode(str, enum.Enum):
    """The kernel's own reason codes: outcomes the pipeline itself reports, no policy's."""

    PREVIEW_DEGRADED = "PREVIEW_DEGRADED"
    PLUGIN_ERROR = "PLUGIN_ERROR"
    SESSION_ID_REQUIRED = "SESSION_ID_REQUIRED"
    INDEX_BUILDING = "INDEX_BUILDING"
    EXTERNAL_CHANGE = "EXTERNAL_CHANGE"


# The rank rule (docs/reference/reason-codes.md states it for users): responses list codes
# by (rank, code), lower first. The kernel's codes hold the ranks below; no plugin code may
# take one of them, and every other rank is free. A plugin code registered without a rank
# gets EXTENSION_DEFAULT_RANK, after every kernel code; a rank below the kernel's is for a
# code that must lead them (a refusal's reason).
KERNEL_RANKS: dict[ReasonCode, int] = {
    ReasonCode.PREVIEW_DEGRADED: 6,
    ReasonCode.PLUGIN_ERROR: 7,
    ReasonCode.SESSION_ID_REQUIRED: 8,
    ReasonCode.INDEX_BUILDING: 9,
    ReasonCode.EXTERNAL_CHANGE: 10,
}

EXTENSION_DEFAULT_RANK = 1000
_UNKNOWN_RANK = 1 << 30
_RESERVED_RANKS = frozenset(KERNEL_RANKS.values())


@dataclass(frozen=True)
class ReasonCodeSpec:
    """A reason code a plugin contributes, with its UX metadata.

    :ivar rank: its place in a response's ``reason_codes``, lower first; any rank but the
        kernel's own (6 to 10); by default 1000, after every kernel code.
    """

    code: str
    description: str
    severity: Severity = "warning"
    next_call_template: dict[str, Any] | None = None
    rank: int = EXTENSION_DEFAULT_RANK


@dataclass
class ReasonRegistry:
    """Ordered registry of every known code: kernel codes first, then extensions.

    Order is (rank, code) so that two plugins registering codes in either order
    yield the same response bytes.
    """

    _specs: dict[str, ReasonCodeSpec] = field(default_factory=dict)
    _rank_cache: dict[str, tuple[int, str]] = field(default_factory=dict)

    @classmethod
    def with_kernel_codes(cls) -> ReasonRegistry:
        registry = cls()
        metadata = _load_registry_metadata()
        for code in ReasonCode:
            entry = metadata.get(code.value, {})
            registry._specs[code.value] = ReasonCodeSpec(
                code=code.value,
                description=entry.get("description", code.value),
                severity=entry.get("severity", "warning"),
                next_call_template=entry.get("next_call_template"),
                rank=KERNEL_RANKS[code],
            )
        registry._reindex()
        return registry

    def register(self, spec: ReasonCodeSpec, *, owner: str) -> None:
        if spec.code in self._specs:
            existing = self._specs[spec.code]
            if existing != spec:
                raise ValueError(
                    f"reason code {spec.code!r} from plugin {owner!r} conflicts with an "
                    "already registered code; pick a unique, plugin-prefixed name"
                )
            return
        if spec.rank in _RESERVED_RANKS:
            raise ValueError(
                f"reason code {spec.code!r} from plugin {owner!r} asks for rank {spec.rank}, "
                f"which is reserved for a kernel code (reserved: {sorted(_RESERVED_RANKS)})"
            )
        self._specs[spec.code] = spec
        self._reindex()

    def _reindex(self) -> None:
        self._rank_cache = {code: (spec.rank, code) for code, spec in self._specs.items()}

    def __contains__(self, code: object) -> bool:
        return code in self._specs

    def get(self, code: str) -> ReasonCodeSpec | None:
        return self._specs.get(code)

    def codes(self) -> list[str]:
        return sorted(self._specs, key=self._rank_cache.__getitem__)

    def rank_of(self, code: str) -> tuple[int, str]:
        """Sort key of a code: registered codes by (rank, name), unknown ones last by name."""
        return self._rank_cache.get(code, (_UNKNOWN_RANK, code))

    def order(self, codes: Any) -> list[str]:
        """De-duplicate and sort codes by registry order."""
        unique = {str(getattr(code, "value", code)) for code in codes}
        return sorted(unique, key=self.rank_of)


def _load_registry_metadata() -> dict[str, dict[str, Any]]:
    text = resources.files("sari_core.kernel").joinpath("reason_registry.json").read_text("utf-8")
    data = json.loads(text)
    return {entry["code"]: entry for entry in data["codes"]}
