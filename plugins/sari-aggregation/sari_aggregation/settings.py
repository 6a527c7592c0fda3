"""The ``[tool.sari.aggregation]`` settings section."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from sari_core import OperatorOnly, Tightens

SECTION = "aggregation"

CompressibleMode = Literal["file", "symbol", "snippet"]


class AggregationSettings(BaseModel):
    """What aggregation compresses and how much of a session it remembers."""

    modes: Annotated[list[CompressibleMode], Tightens(
        "add", "a mode left out sends repeated lines again in full")] = Field(
        default_factory=lambda: ["file", "snippet", "symbol"],
        description="Read modes whose payload (lines of a file) is deduplicated; "
                    "diff_preview payloads are never rewritten.")
    max_items_per_session: Annotated[int, OperatorOnly(
        "more remembered reads hold more memory per session")] = Field(
        512, ge=1,
        description="Delivered reads remembered per session; the oldest are forgotten "
                    "first and their lines are sent again in full.")
