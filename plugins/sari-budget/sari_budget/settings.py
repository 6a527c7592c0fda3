"""The ``[tool.sari.budget]`` settings section, with its defaults."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from sari_core import OperatorOnly, Tightens

SECTION = "budget"

# A workspace file may lower a limit (a stricter budget), never raise it.
Limit = Annotated[int, OperatorOnly("a higher limit weakens the budget", workspace_may="lower")]


class BudgetSettings(BaseModel):
    """Limits of one session's reads. Session limits count what was delivered."""

    max_reads_per_session: Limit = Field(
        25, ge=1,
        description="Reads a session may be served; the next one is refused (BUDGET_EXCEEDED).")
    max_total_read_lines: Limit = Field(
        2500, ge=1,
        description="Lines a session may be delivered in total; a read that would pass it is "
                    "trimmed to what is left, and once it is spent reads are refused.")
    max_single_read_lines: Limit = Field(
        300, ge=1,
        description="Lines one read may deliver; a longer payload is trimmed to the cap "
                    "(PREVIEW_DEGRADED).")
    max_range_read_lines: Limit = Field(
        1000, ge=1,
        description="Lines one read that names its range (a file read with limit, a snippet "
                    "with end_line) may deliver, instead of max_single_read_lines: the agent "
                    "chose those lines, and cutting them costs it a turn.")
    max_range_read_chars: Limit = Field(
        40000, ge=1,
        description="Characters one read that names its range may deliver, instead of "
                    "max_preview_chars.")
    min_match_window_lines: Annotated[int, Tightens(
        "lower", "a wider window around a match serves more lines than a read may")] = Field(
        60, ge=1,
        description="Lines a whole-file read of a long file shows at least when it is served "
                    "as the definition the session's search matched: the definition, 10 lines "
                    "before it, and what follows it (often the helpers it calls).")
    max_preview_chars: Limit = Field(
        12000, ge=1,
        description="Characters one read may deliver; a longer payload is trimmed to the cap "
                    "(PREVIEW_DEGRADED). A smaller max_preview_chars argument of the call wins.")
    soft_limit_ratio: Annotated[float, OperatorOnly(
        "a higher ratio warns later", workspace_may="lower")] = Field(
        0.8, gt=0.0, le=1.0,
        description="Share of a session limit (reads or lines) from which responses carry "
                    "BUDGET_SOFT_LIMIT and guide to search.")
