"""The ``[tool.sari.refgate]`` settings section."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from sari_core import OperatorOnly, Tightens

ReadMode = Literal["file", "symbol", "snippet", "diff_preview"]


class RefgateSettings(BaseModel):
    """How strictly reads must follow search results."""

    strict: Annotated[bool, OperatorOnly(
        "false serves blind reads strict mode refuses", workspace_may="enable")] = Field(
        False,
        description="Refuse a blind read (a file no search of the session returned, wider "
                    "than max_range_lines) instead of serving its first window.",
    )
    policy: Annotated[Literal["enforce", "warn"], OperatorOnly(
        "warn serves what enforce refuses", workspace_may=("warn", "enforce"))] = Field(
        "enforce",
        description="With strict: enforce refuses a blind read; warn serves it with the "
                    "same reason codes, message and next_calls attached as a warning.",
    )
    blind_reads: Annotated[Literal["outline", "window"], Tightens(
        ("window", "outline"), "a window serves more of a blind read than its outline")] = Field(
        "outline",
        description="How a read of more than max_range_lines lines (a whole file, or a "
                    "named range) of a file no search returned, or a named range of a "
                    "searched file where no search matched, is served (without strict): "
                    "as the outline of those lines (their definitions with line ranges, only "
                    "the top-level ones when there are more than max_range_lines; fewer than "
                    "three, or too many, get the window), after which the file's next read "
                    "is served as asked; or as its first max_range_lines lines.",
    )
    max_range_lines: Annotated[int, OperatorOnly(
        "a wider range serves larger blind reads", workspace_may="lower")] = Field(
        100, ge=1,
        description="Widest read served as asked (snippet start_line..end_line plus "
                    "context, or file limit) of a file no search returned, or of lines of a "
                    "searched file where no search matched; wider ones are served as the "
                    "outline of those lines or a window of this many lines (blind_reads).",
    )
    drift_after: Annotated[int, OperatorOnly(
        "0 turns the drift check off; a higher count drifts further")] = Field(
        2, ge=0,
        description="After this many reads in a row of files no search of the session "
                    "returned (no search, and no read of a searched file, between them), the "
                    "next such read of any length is served as the outline of its lines when "
                    "they hold a definition (blind_reads = \"outline\", without strict): the "
                    "session has drifted from what it searched for. 0 turns it off.",
    )
    gated_modes: Annotated[list[ReadMode], OperatorOnly(
        "a mode left out is not gated", workspace_may="add")] = Field(
        default_factory=lambda: ["file", "symbol", "snippet", "diff_preview"],
        description="Read modes the gate applies to; reads in other modes pass untouched.",
    )
    max_bundles_per_session: Annotated[int, OperatorOnly(
        "more remembered bundles hold more memory per session")] = Field(
        32, ge=1,
        description="Search bundles remembered per session (LRU); refs of older bundles "
                    "expire with them.",
    )
    next_calls_per_search: Annotated[int, Tightens(
        "either", "only shapes the proposed next calls")] = Field(
        3, ge=0,
        description="How many of the top matches get a ready-to-run read in the search "
                    "response's next_calls.",
    )
    window_context_lines: Annotated[int, Tightens(
        "lower", "wider proposed windows serve more lines")] = Field(
        20, ge=0,
        description="Lines before and after a match line in the snippet windows proposed by "
                    "next_calls.",
    )
    max_windows: Annotated[int, Tightens(
        "lower", "more proposed windows serve more lines")] = Field(
        3, ge=1,
        description="How many consecutive windows a refused wide precision read proposes.",
    )
