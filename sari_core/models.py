"""The values that flow through the pipeline: calls, engine results, events.

Calls are what a client asked for (validated at the boundary); results are what
the engine produced and what ``on_*_exit`` hooks may trim or annotate before the
response leaves. Everything here is a pydantic model so plugins, the server and
the docs share one schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ReadMode = Literal["file", "symbol", "snippet", "diff_preview", "outline"]
SearchKind = Literal["text", "regex", "symbol", "path", "references", "callers",
                     "implementations"]
NameMatch = Literal["exact", "prefix", "fuzzy"]
DiffBaseline = Literal["HEAD", "WORKTREE", "INDEX"]
MutationTool = Literal["edit", "write", "external"]
MutationPhase = Literal["before", "after"]
MutationSource = Literal["sari", "external"]


class NextCall(BaseModel):
    """A ready-to-run tool call the client can issue as is."""

    model_config = ConfigDict(frozen=True)

    tool: str
    arguments: dict[str, Any]

    def sort_key(self) -> tuple[str, str]:
        import json

        return (self.tool, json.dumps(self.arguments, sort_keys=True, default=str))


class Location(BaseModel):
    file: str
    line: int | None = None
    end_line: int | None = None


class ReadCall(BaseModel):
    """A validated ``read`` request. Mode-specific fields are None outside their mode."""

    mode: ReadMode
    target: str
    # As in Claude Code's Read: the first line shown, counted from 1 within what the mode
    # selects (the file, the symbol's lines, the snippet, the diff); 0 reads from the start.
    offset: int | None = None
    limit: int | None = None  # how many lines, from offset
    preview_mode: Literal["none", "snippet"] = "snippet"
    max_preview_chars: int | None = None
    # symbol
    path: str | None = None
    include_context: bool | None = None
    # snippet
    start_line: int | None = None
    end_line: int | None = None
    context_lines: int | None = None
    # diff_preview
    against: DiffBaseline | None = None
    # refs issued by search
    candidate_id: str | None = None
    bundle_id: str | None = None
    session_id: str | None = None
    # which tool the client called (``read`` or a deprecated wrapper)
    entrypoint: str = "read"

    @property
    def skipped_lines(self) -> int:
        """How many lines of the mode's range come before ``offset``."""
        return max((self.offset or 0) - 1, 0)


class ReadResult(BaseModel):
    """What the engine read. ``on_read_exit`` hooks may rewrite ``text`` (trim, dedupe)."""

    path: str
    text: str
    start_line: int = 1
    end_line: int = 0
    total_lines: int = 0
    content_hash: str = ""
    truncated: bool = False
    preview_degraded: bool = False
    location: Location | None = None
    diff: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def lines_returned(self) -> int:
        return self.end_line - self.start_line + 1 if self.end_line >= self.start_line else 0


class SearchCall(BaseModel):
    query: str
    kind: SearchKind = "text"
    path_glob: str | None = None
    limit: int = 10
    case_sensitive: bool = False
    match: NameMatch | None = None  # how symbol names match the query (symbol, navigation)
    session_id: str | None = None
    # kind "text": the literal only. A client's search with no kind is understood instead
    # (a name, a dotted name, code, a regex or words: engine/default_search.py).
    literal: bool = True


class SearchMatch(BaseModel):
    path: str
    line: int | None = None
    end_line: int | None = None
    kind: str = "text"
    snippet: str = ""
    score: float = 0.0
    symbol: str | None = None
    candidate_id: str | None = None
    scope: str | None = None  # navigation: the definition enclosing the hit
    scope_lines: list[int] | None = None  # its first and last line
    # the default search: the definition the hit is in, numbered (short: whole; long:
    # signature and outline), so the read that would follow is not needed
    context: str | None = None


class SearchResult(BaseModel):
    query: str
    kind: SearchKind = "text"
    matches: list[SearchMatch] = Field(default_factory=list)
    total: int = 0
    truncated: bool = False
    index_ready: bool = True
    extra: dict[str, Any] = Field(default_factory=dict)
    # sentences for the model about how the matches were found (shown with the warnings)
    notes: list[str] = Field(default_factory=list)


class MutationCall(BaseModel):
    """A client's ``edit`` or ``write``."""

    tool: Literal["edit", "write"]
    path: str
    old_string: str | None = None
    new_string: str | None = None
    expected_occurrences: int = 1
    content: str | None = None
    session_id: str | None = None


class FileChange(BaseModel):
    """One file's change. Texts are None when the file does not exist (created/deleted)."""

    path: str
    abs_path: str
    old_text: str | None = None
    new_text: str | None = None


class MutationEvent(BaseModel):
    """Raised through ``on_mutation`` before and after a write, and for changes seen on disk."""

    phase: MutationPhase
    source: MutationSource
    tool: MutationTool
    changes: list[FileChange]
    applied: bool = False

    @property
    def paths(self) -> list[str]:
        return [change.path for change in self.changes]


class ChatFrame(BaseModel):
    role: Literal["user", "assistant", "tool"]
    content: str
    tool_name: str | None = None
    execution_id: str | None = None
    timestamp: int = 0
    sequence_index: int = 0


class CompactionEvent(BaseModel):
    """A conversation is being compacted: ``frames`` is the window leaving the context."""

    chat_session_id: str
    frames: list[ChatFrame] = Field(default_factory=list)
    retained: list[ChatFrame] = Field(default_factory=list)
    trigger: str = "manual"


class CompactionContribution(BaseModel):
    """A plugin's part of a compaction summary.

    ``summary`` is the base block (one plugin provides it; the first by plugin
    name wins); ``lines`` are extra lines other plugins add, in plugin-name order:
    before the base's first line that starts with its ``insert_before`` prefix (a
    closing block that must stay last), else at the end.
    """

    summary: str | None = None
    lines: list[str] = Field(default_factory=list)
    insert_before: str | None = None


class TierEntry(BaseModel):
    """An item entered a prompt-cache tier."""

    item: str
    tier: Literal["active", "L3", "L2", "L1", "L0"]
    previous_tier: Literal["active", "L3", "L2", "L1", "L0"] | None = None
    n_value: int
    reason: Literal["inactive", "promotion", "modified", "reactivated", "initial"]


class CallRecord(BaseModel):
    """One tool call as it completed (served or refused), for execution logs."""

    execution_id: str
    tool: str
    session_key: str
    arguments: dict[str, Any]
    ok: bool
    target: str | None = None
    error_code: str | None = None
    reason_codes: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    timestamp: float = 0.0
    response: dict[str, Any] = Field(default_factory=dict)
    # The client's own tool this call stood for (``claude-code:Read``), run through the
    # policies by a client hook; None for a call of Sari's own tools.
    native: str | None = None

    @classmethod
    def trusted(cls, **values: Any) -> CallRecord:
        """Build from values the kernel made itself, every field given, without validation.

        It fills what ``model_construct`` fills, minus its per-field default handling,
        which costs several microseconds on every call once an execution log listens.
        """
        record = cls.__new__(cls)
        object.__setattr__(record, "__dict__", values)
        object.__setattr__(record, "__pydantic_fields_set__", set(values))
        object.__setattr__(record, "__pydantic_extra__", None)
        object.__setattr__(record, "__pydantic_private__", None)
        return record


class ClientHookEvent(BaseModel):
    """A client's hook invocation (``sari hook claude-code post-tool-use``)."""

    client: str
    event: str
    payload: dict[str, Any] = Field(default_factory=dict)
    workspace: str | None = None


class ClientHookResult(BaseModel):
    block: bool = False
    reason: str = ""
    additional_context: str = ""
