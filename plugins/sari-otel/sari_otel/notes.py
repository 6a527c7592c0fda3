"""What the plugin notes while a call runs (no OpenTelemetry import: cheap to create)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Note:
    """Something that happened during a call, at ``time_ns`` (wall clock)."""

    time_ns: int
    kind: str  # "verdict", "engine_start", "engine_end", "external"
    attributes: dict[str, Any] = field(default_factory=dict)
    engine: str = ""
