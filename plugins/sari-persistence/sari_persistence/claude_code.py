"""Claude Code hooks: PreCompact stores the conversation, SessionStart(compact) re-injects it.

``sari hook claude-code pre-compact`` gets ``{session_id, transcript_path, cwd,
hook_event_name: "PreCompact", trigger: "manual"|"auto", custom_instructions}``
on stdin: the transcript is ingested (idempotently), its live frames are marked
compacted, and a ``chat_compactions`` row with its summary is written.

``sari hook claude-code session-start`` gets ``{session_id, transcript_path, cwd,
hook_event_name: "SessionStart", source: "startup"|"resume"|"clear"|"compact"}``;
with ``source == "compact"`` the newest summary of that session is returned and
the core command prints it as ``hookSpecificOutput.additionalContext``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sari_core import canonical_root
from sari_persistence import reads, schema
from sari_persistence.compaction import live_window, summary_with_log
from sari_persistence.records import execution_row
from sari_persistence.schema import ExecutionLogUnavailable
from sari_persistence.settings import PersistenceSettings
from sari_persistence.store import (
    INSERT_EXECUTION,
    StoredCompaction,
    ensure_chat_session,
    insert_frame,
    open_store,
    store_compaction,
)
from sari_persistence.transcript import Transcript, read_transcript


@dataclass(frozen=True)
class IngestResult:
    frames_added: int
    executions_added: int
    skipped_lines: int


def ingest_transcript(conn: Any, transcript: Transcript, cap: int) -> IngestResult:
    """Write a parsed transcript; frames and executions already present are skipped."""
    ensure_chat_session(conn, transcript.session)
    next_seq: dict[str, int] = {}
    added = sum(1 for frame in transcript.frames
                if insert_frame(conn, frame, cap, next_seq) is not None)
    executions = sum(max(0, conn.execute(INSERT_EXECUTION, execution_row(row, cap)).rowcount)
                     for row in transcript.executions)
    return IngestResult(added, executions, transcript.skipped_lines)


def pre_compact(payload: dict[str, Any], settings: PersistenceSettings,
                workspace: str | None) -> StoredCompaction | None:
    """Ingest the transcript and compact the session's live frames (None: nothing new)."""
    session_id = str(payload.get("session_id") or "")
    transcript_path = payload.get("transcript_path")
    if not session_id or not transcript_path:
        raise ValueError("PreCompact input needs session_id and transcript_path")
    cwd = payload.get("cwd") or workspace
    transcript = read_transcript(Path(str(transcript_path)), session_id, cwd)
    cap = settings.max_payload_chars
    store = open_store(settings)
    try:
        def job(conn: Any) -> StoredCompaction | None:
            ingest_transcript(conn, transcript, cap)
            # Claude Code replaces the whole conversation by its summary: nothing is retained.
            window = live_window(conn, session_id, keep_last=0)
            if not window.compacted:
                return None
            summary = summary_with_log(conn, window.compacted, [],
                                       transcript.session.project_root, settings)
            return store_compaction(conn, session_id,
                                    [frame.sequence_index for frame in window.compacted], [],
                                    summary, cap)

        # A long session's transcript is large: give its ingestion time.
        return store.run_job(job, timeout=600.0)
    finally:
        store.close()


def session_start(payload: dict[str, Any], settings: PersistenceSettings,
                  workspace: str | None) -> str | None:
    """The summary to re-inject after a compaction, or None."""
    if payload.get("source") != "compact":
        return None
    if settings.database_url is not None:
        try:
            store = open_store(settings)
        except ExecutionLogUnavailable:
            return None
        try:
            with store.reading() as conn:
                return _summary_to_resume(conn, payload, settings, workspace)
        except ExecutionLogUnavailable:
            return None
        finally:
            store.close()
    path = settings.resolved_db_path()
    if not path.exists():
        return None
    conn = schema.connect(path, readonly=True)
    try:
        version = schema.user_version(conn)
        if version == 0 or version > schema.SCHEMA_VERSION:
            return None
        return _summary_to_resume(conn, payload, settings, workspace)
    finally:
        conn.close()


def _summary_to_resume(conn: Any, payload: dict[str, Any], settings: PersistenceSettings,
                       workspace: str | None) -> str | None:
    session_id = str(payload.get("session_id") or "")
    found = reads.latest_compaction(conn, session_id) if session_id else None
    cwd = payload.get("cwd") or workspace
    if found is None and cwd and settings.session_start_fallback_seconds > 0:
        since = int((time.time() - settings.session_start_fallback_seconds) * 1000)
        found = reads.latest_project_compaction(conn, canonical_root(cwd), since)
    return found.summary if found is not None else None
