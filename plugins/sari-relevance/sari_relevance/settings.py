"""The ``[tool.sari.relevance]`` settings section."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from sari_core import Tightens

ReadMode = Literal["file", "symbol", "snippet", "diff_preview"]


class RelevanceSettings(BaseModel):
    """When a read looks unrelated to what the session searched for."""

    top_k: Annotated[int, Tightens("lower", "more paths count as relevant")] = Field(
        10, ge=1,
        description="Distinct paths of the latest search (in rank order) that count as relevant.",
    )
    max_alternatives: Annotated[int, Tightens("either", "only shapes the warning")] = Field(
        3, ge=0,
        description="Alternatives from the latest search offered with a warning, best first.",
    )
    hard: Annotated[bool, Tightens("enable", "false warns where true refuses")] = Field(
        False,
        description="Refuse an unrelated read (error code LOW_RELEVANCE) instead of warning.",
    )
    excluded_paths: Annotated[list[str], Tightens(
        "add", "a path left out is no longer flagged")] = Field(
        default_factory=lambda: ["vendor/", "node_modules/", ".git/", "dist/"],
        description="Reads under these are always flagged. An entry ending in / names a folder "
                    "at any depth; any other entry is a glob matched against the "
                    "workspace-relative path.",
    )
    checked_modes: Annotated[list[ReadMode], Tightens(
        "add", "a mode left out is not checked")] = Field(
        default_factory=lambda: ["file", "snippet", "symbol"],
        description="Read modes that are checked. diff_preview is left out by default: "
                    "reviewing one's own edit is relevant whatever was searched last.",
    )
    alternative_context_lines: Annotated[int, Tightens(
        "lower", "wider proposed windows serve more lines")] = Field(
        20, ge=0,
        description="Lines either side of an alternative's match line in the snippet read "
                    "proposed for it.",
    )
