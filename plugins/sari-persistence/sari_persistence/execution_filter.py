"""Which executions a reader of the log asks for: machine, time, tool, outcome.

An unserved call is either **refused** (a rule said no: a policy, the workspace guard, a
vetoed edit) or **failed** (nothing to serve: a missing file, bad arguments, an error).
The kernel's error codes that mean "failed" are listed here; every other code — a
policy's own code included — is a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sari_core import ErrorCode
from sari_persistence.search import tool_clause

# A client's own tool failing (an ingested transcript's is_error), and the log being away.
CLIENT_TOOL_ERROR = "TOOL_ERROR"
LOG_UNAVAILABLE = "EXECUTION_LOG_UNAVAILABLE"

# What each failure is, in words a reader of the log recognises.
FAILURES = {
    ErrorCode.NOT_FOUND: "no such file or symbol",
    ErrorCode.INVALID_ARGS: "invalid arguments",
    ErrorCode.BINARY_FILE: "a binary file",
    ErrorCode.FILE_TOO_LARGE: "the file is too large",
    ErrorCode.NOT_A_FILE: "not a file",
    ErrorCode.SYMBOL_AMBIGUOUS: "the symbol is ambiguous",
    ErrorCode.GIT_UNAVAILABLE: "git is unavailable",
    ErrorCode.NOT_A_GIT_REPOSITORY: "not a git repository",
    ErrorCode.EDIT_NO_MATCH: "the edit matched nothing",
    ErrorCode.EDIT_AMBIGUOUS: "the edit matched more than once",
    ErrorCode.PLUGIN_ERROR: "a plugin failed",
    ErrorCode.INTERNAL_ERROR: "an internal error",
    ErrorCode.UNKNOWN_TOOL: "no such tool",
    ErrorCode.REQUEST_TOO_LARGE: "the request is too large",
    ErrorCode.BUSY: "the server was busy",
    CLIENT_TOOL_ERROR: "the client's tool failed",
    LOG_UNAVAILABLE: "the execution log was away",
}

Outcome = Literal["refused", "failed"]


def outcome_of(ok: bool, error_code: str | None) -> str:
    """``ok``, ``refused`` or ``failed``."""
    if ok:
        return "ok"
    return "failed" if error_code in FAILURES else "refused"


def outcome_label(ok: bool, error_code: str | None) -> str:
    """The outcome as a reader sees it: ``ok``, ``refused CODE``, ``failed CODE (what)``."""
    if ok:
        return "ok"
    if error_code in FAILURES:
        return f"failed {error_code} ({FAILURES[error_code]})"
    return f"refused {error_code or 'UNKNOWN'}"


@dataclass(frozen=True)
class ExecutionFilter:
    """What ``sari log`` keeps; every field None keeps everything.

    :ivar machine: executions recorded on this machine.
    :ivar since_ms: at or after (Unix milliseconds).
    :ivar until_ms: at or before (Unix milliseconds).
    :ivar tool: this tool's calls (``mcp__<server>__edit`` matches ``edit``).
    :ivar outcome: only refused, or only failed, calls.
    """

    machine: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    tool: str | None = None
    outcome: Outcome | None = None

    @property
    def narrows_executions_only(self) -> bool:
        """The filter names what only executions carry (a machine, an outcome)."""
        return self.machine is not None or self.outcome is not None

    def execution_sql(self, alias: str = "") -> tuple[str, list[Any]]:
        """``AND ...`` clauses over the executions table (``alias.`` prefixed), and params."""
        col = f"{alias}." if alias else ""
        clauses: list[str] = []
        params: list[Any] = []
        if self.machine is not None:
            clauses.append(f"{col}machine = ?")
            params.append(self.machine)
        self._time(f"{col}timestamp", clauses, params)
        if self.tool is not None:
            clauses.append(tool_clause(f"{col}tool", self.tool, params))
        if self.outcome is not None:
            marks = ", ".join("?" * len(FAILURES))
            test = "IN" if self.outcome == "failed" else "NOT IN"
            clauses.append(f"{col}ok = 0 AND COALESCE({col}error_code, '') {test} ({marks})")
            params.extend(FAILURES)
        return "".join(f" AND {clause}" for clause in clauses), params

    def frame_sql(self, alias: str = "") -> tuple[str, list[Any]]:
        """``AND ...`` clauses over chat frames: time and tool (frames have no machine)."""
        col = f"{alias}." if alias else ""
        clauses: list[str] = []
        params: list[Any] = []
        self._time(f"{col}timestamp", clauses, params)
        if self.tool is not None:
            clauses.append(tool_clause(f"{col}tool_name", self.tool, params))
        return "".join(f" AND {clause}" for clause in clauses), params

    def _time(self, column: str, clauses: list[str], params: list[Any]) -> None:
        if self.since_ms is not None:
            clauses.append(f"{column} >= ?")
            params.append(self.since_ms)
        if self.until_ms is not None:
            clauses.append(f"{column} <= ?")
            params.append(self.until_ms)

