"""Compaction glue: which frames leave the window, and the summary with the log's facts.

The summary itself is :func:`sari_persistence.summary.build_summary` (pure); this
module adds what only the log knows — which executions failed — and splits a
session's live frames into the compacted window and the retained tail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sari_persistence import reads
from sari_persistence.carried import latest_prior
from sari_persistence.reads import StoredFrame
from sari_persistence.settings import PersistenceSettings
from sari_persistence.store import SUMMARY_TOOL
from sari_persistence.summary import FrameLike, build_summary


@dataclass(frozen=True)
class Window:
    """A session's live frames split for compaction."""

    compacted: list[StoredFrame]
    retained: list[StoredFrame]


def split_window(live: Sequence[StoredFrame], keep_last: int) -> Window:
    """The last ``keep_last`` live frames stay; the rest leave the window.

    A window holding nothing but earlier summaries is not compacted again (running
    a client's PreCompact hook twice must not stack summaries of summaries).
    """
    cut = max(0, len(live) - keep_last) if keep_last > 0 else len(live)
    if all(frame.tool_name == SUMMARY_TOOL for frame in live[:cut]):
        cut = 0
    return Window(list(live[:cut]), list(live[cut:]))


def live_window(conn: Any, session_id: str, keep_last: int) -> Window:
    return split_window(reads.frames(conn, session_id, include_compacted=False), keep_last)


def summary_with_log(conn: Any | None, window: Sequence[FrameLike],
                     retained: Sequence[FrameLike], project_root: str | None,
                     settings: PersistenceSettings) -> str:
    """The base summary; failures known to the log count as failures."""
    prior = latest_prior([*window, *retained])
    ids = [frame.execution_id for frame in [*window, *retained] if frame.execution_id]
    ids += list(prior.key_executions) if prior is not None else []
    failed = reads.failed_execution_ids(conn, ids) if conn is not None and ids else set()
    return build_summary(window, retained, project_root=project_root,
                         failed_execution_ids=failed,
                         key_execution_count=settings.key_executions,
                         field_chars=settings.summary_field_chars)


def project_root_of(conn: Any | None, session_id: str,
                    default: str | None) -> str | None:
    if conn is None:
        return default
    info = reads.chat_session(conn, session_id)
    return info.project_root if info is not None and info.project_root else default
