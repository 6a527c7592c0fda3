"""The ``[tool.sari.persistence]`` settings section."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator

from sari_core import OperatorOnly, Tightens, state_dir

SECTION = "persistence"
DB_FILENAME = "execution_log.db"


class PersistenceSettings(BaseModel):
    """Where the execution log lives, how records reach it, and the summary's knobs."""

    db_path: Annotated[str | None, OperatorOnly(
        "writes every call's arguments to a file of its choosing")] = Field(
        None,
        description="Path of the SQLite execution log; null means execution_log.db in the "
                    "user's state folder (SARI_STATE_DIR overrides the platform default).",
    )
    database_url: Annotated[SecretStr | None, OperatorOnly(
        "sends every call's arguments to a database of its choosing")] = Field(
        None,
        description="A PostgreSQL database shared by many servers (postgresql://user:pass@host"
                    ":5432/db, or libpq key=value); null keeps the SQLite file. Operator-only: "
                    "honoured from the user's config file, SARI_PERSISTENCE__DATABASE_URL or "
                    "flags, never from a workspace's files. Its password is never shown.",
    )
    pool_size: Annotated[int, OperatorOnly(
        "more connections load a shared database; fewer starve readers")] = Field(
        4, ge=2, le=64,
        description="Most PostgreSQL connections one server holds (one writes, the rest read).",
    )
    connect_timeout_seconds: Annotated[float, OperatorOnly(
        "a short wait counts the database away and drops records")] = Field(
        5.0, gt=0, le=120,
        description="How long a PostgreSQL connection attempt, or a wait for a pooled "
                    "connection, may take before the database counts as away.",
    )
    machine: Annotated[str | None, OperatorOnly(
        "names the machine every record of a shared log carries")] = Field(
        None,
        description="The name this server's records carry as the machine they came from; "
                    "null means the host name.",
    )
    record_executions: Annotated[bool, OperatorOnly(
        "false stops recording calls", workspace_may="enable")] = Field(
        True,
        description="Record every tool call (served or refused) in the executions table.",
    )
    max_payload_chars: Annotated[int, OperatorOnly(
        "a smaller cap keeps less of each call in the record")] = Field(
        8192, ge=256,
        description="Cap on each stored payload (arguments, response, frame content); longer "
                    "strings are cut and marked, never the whole workspace.",
    )
    response_text_chars: Annotated[int, OperatorOnly(
        "a smaller cap keeps less of each response in the record")] = Field(
        1000, ge=0,
        description="Characters of a response's payload text (read text, diff) kept in its "
                    "executions row, and at most 20 search matches; the client got it all.",
    )
    flush_interval_ms: Annotated[int, OperatorOnly(
        "a longer wait loses more records to a kill")] = Field(
        50, ge=1, le=1000,
        description="Longest time a record waits in memory before the writer thread commits "
                    "its batch; a hard kill loses at most this window.",
    )
    batch_size: Annotated[int, OperatorOnly(
        "how records reach the log is the operator's to tune")] = Field(
        256, ge=1,
        description="Most records the writer thread commits in one transaction.",
    )
    queue_size: Annotated[int, OperatorOnly("a smaller queue drops records")] = Field(
        10000, ge=1,
        description="Bound of the in-memory record queue; when full, new records are dropped "
                    "and counted instead of slowing the call down.",
    )
    keep_last_frames: Annotated[int, Tightens(
        "either", "only shapes a compaction summary")] = Field(
        6, ge=0,
        description="Frames a library compaction keeps in the window when keep_last is not given.",
    )
    key_executions: Annotated[int, Tightens("either", "only shapes a compaction summary")] = Field(
        5, ge=0,
        description="How many of the last tool execution ids the summary lists (failures in "
                    "the compacted window are always listed).",
    )
    summary_field_chars: Annotated[int, Tightens(
        "either", "only shapes a compaction summary")] = Field(
        300, ge=40,
        description="Longest Goal / Current task text in the summary; longer text is cut with "
                    "an ellipsis.",
    )
    context_query_max_results: Annotated[int, Tightens(
        "lower", "a larger page returns more records at once")] = Field(
        50, ge=1,
        description="Largest page context_query returns (its limit argument is clamped to this).",
    )
    context_query_item_chars: Annotated[int, Tightens(
        "lower", "a longer item returns more of each record")] = Field(
        2000, ge=80,
        description="Longest frame content or payload one context_query item carries; longer "
                    "text is cut and marked content_truncated.",
    )
    context_query_other_sessions: Annotated[bool, OperatorOnly(
        "true shows other sessions' records", workspace_may="disable")] = Field(
        False,
        description="Older spelling of context_query_scope = \"workspace\" (true).",
    )
    context_query_scope: Annotated[Literal["session", "workspace", "team"], OperatorOnly(
        "a wider scope shows other sessions' records",
        workspace_may=("team", "workspace", "session"))] = Field(
        "session",
        description="How far context_query may reach. session: the caller's own session's "
                    "records only, whatever it asks (an HTTP server's other clients stay "
                    "private); workspace: other sessions of this workspace too; team: every "
                    "session in the log (a shared PostgreSQL log: every machine's). "
                    "Operator-only: a workspace's files cannot widen it.",
    )
    session_metrics_backend: Annotated[Literal["memory", "sqlite"], OperatorOnly(
        "writes session metrics to the log")] = Field(
        "memory",
        description="memory keeps session metrics in memory only (the default); sqlite "
                    "also upserts each session's latest metrics into the session_metrics table.",
    )
    install_sigterm_handler: Annotated[bool, OperatorOnly(
        "false loses queued records when the server is stopped")] = Field(
        True,
        description="On SIGTERM, flush pending records before the process exits (the previous "
                    "handler is chained).",
    )
    session_start_fallback_seconds: Annotated[float, OperatorOnly(
        "how the log tells sessions apart is the operator's")] = Field(
        600.0, ge=0,
        description="On a Claude Code SessionStart(compact) whose session has no summary, reuse "
                    "the newest summary of the same project if it is at most this old.",
    )

    @field_validator("database_url")
    @classmethod
    def _postgres_only(cls, value: SecretStr | None) -> SecretStr | None:
        from sari_persistence.dsn import is_postgres_url

        if value is None or not value.get_secret_value().strip():
            return None
        if not is_postgres_url(value.get_secret_value()):
            raise ValueError("database_url must be a postgresql:// URL or a libpq key=value "
                             "string (the SQLite file is set with db_path)")
        return value

    @property
    def query_reach(self) -> str:
        """The widest context_query scope allowed (the older boolean counts as workspace)."""
        if self.context_query_scope == "session" and self.context_query_other_sessions:
            return "workspace"
        return self.context_query_scope

    def resolved_db_path(self) -> Path:
        """The database file these settings point at."""
        if self.db_path:
            return Path(self.db_path).expanduser()
        return state_dir() / DB_FILENAME
