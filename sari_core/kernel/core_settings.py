"""The kernel's own settings section, ``[tool.sari.core]``."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from sari_core.kernel.trust import OperatorOnly, Tightens


class CoreSettings(BaseModel):
    """Settings of the kernel itself."""

    fail_closed_plugins: Annotated[list[str], OperatorOnly(
        "a plugin left out lets its failures pass calls it should refuse",
        workspace_may="add")] = Field(
        default_factory=list,
        description="Plugins whose failure refuses the call (PLUGIN_ERROR) instead of letting it go on.",
    )
    max_sessions: Annotated[int, OperatorOnly(
        "fewer sessions evict other sessions' state (their budgets) sooner; more hold more "
        "memory")] = Field(1024, ge=1, description="LRU bound on sessions kept in memory.")
    session_ttl_seconds: Annotated[float, Tightens(
        "raise", "a shorter idle time forgets a session's budget sooner")] = Field(
        3600.0, gt=0, description="Idle time after which a session's runtime state is dropped.")
    analytics_enabled: Annotated[bool, Tightens(
        "enable", "false stops the analytics record")] = Field(
        True, description="Write analytics events to the JSON-lines sink in the state folder.")
    analytics_queue_size: Annotated[int, OperatorOnly(
        "a smaller queue drops events; a larger one holds more memory")] = Field(
        2000, ge=1, description="Bound of the analytics queue; when full, the newest event is dropped.")
    keep_executable_bits: Annotated[bool, OperatorOnly(
        "lets a file the agent wrote stay executable", workspace_may="disable")] = Field(
        False,
        description="An edit or write over an executable file keeps its exec bits; by default "
                    "they are dropped, so no file the agent wrote is left executable.")
