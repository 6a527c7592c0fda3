"""sari-persistence: the durable execution log and the deterministic compaction summary.

Library use (agent loops that own their conversation)::

    from sari_persistence import ExecutionLog

    log = ExecutionLog.of(kernel)            # or ExecutionLog.open(path)
    chat = log.chat_session("run-42", project_root="/src/app", model="m")
    chat.user("Fix the parser in src/parse.py")
    chat.tool("edit", response_json, execution_id="ex-1a2b3c4d-7")
    outcome = chat.compact(keep_last=6, kernel=kernel)
    print(outcome.summary)

Names are imported lazily, so the storage modules (``store``, ``writer``) load
without the kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_persistence.api import ChatSession, CompactionOutcome, ExecutionLog
    from sari_persistence.schema import SCHEMA_VERSION, ExecutionLogUnavailable

_EXPORTS = {
    "ChatSession": "sari_persistence.api",
    "CompactionOutcome": "sari_persistence.api",
    "ExecutionLog": "sari_persistence.api",
    "SCHEMA_VERSION": "sari_persistence.schema",
    "ExecutionLogUnavailable": "sari_persistence.schema",
}

__all__ = [
    "SCHEMA_VERSION",
    "ChatSession",
    "CompactionOutcome",
    "ExecutionLog",
    "ExecutionLogUnavailable",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sari_persistence' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
