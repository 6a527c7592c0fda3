"""sari-persistence: the durable execution log and the deterministic compaction summary.

Library use (agent loops that own their conversation)::

    from sari_persistence import ExecutionLog

    log = ExecutionLog.of(kernel)            # or ExecutionLog.open(path)
    chat = log.chat_session("run-42", project_root="/src/app", model="m")
    chat.user("Fix the parser in src/parse.py")
    chat.tool("edit", response_json, execution_id="ex-1a2b3c4d-7")
    outcome = chat.compact(keep_last=6, kernel=kernel)
    print(outcome.summary)
"""

from __future__ import annotations

from sari_persistence.api import ChatSession, CompactionOutcome, ExecutionLog
from sari_persistence.schema import SCHEMA_VERSION, ExecutionLogUnavailable

__all__ = [
    "SCHEMA_VERSION",
    "ChatSession",
    "CompactionOutcome",
    "ExecutionLog",
    "ExecutionLogUnavailable",
]
