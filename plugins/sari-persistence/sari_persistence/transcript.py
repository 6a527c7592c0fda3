"""Reading a Claude Code transcript (JSON lines) into chat frames and executions.

Claude Code writes one JSON object per line to ``~/.claude/projects/<slug>/<session>.jsonl``.
Lines of ``type`` ``user`` and ``assistant`` carry ``message.content``: a string,
or a list of blocks — ``text``, ``tool_use`` (``id``, ``name``, ``input``),
``tool_result`` (``tool_use_id``, ``content``, ``is_error``), ``thinking``, ``image``.
Every line has ``uuid``, ``timestamp`` (ISO 8601) and ``sessionId``.

Mapping: user text -> a ``user`` frame; assistant text -> an ``assistant`` frame;
each ``tool_use`` and each ``tool_result`` -> a ``tool`` frame named after the tool,
whose ``execution_id`` is the tool-use id (a pair shares it); a finished pair also
becomes an ``executions`` row (``source = "claude-code"``). Thinking blocks are not
stored (no chain-of-thought is stored), nor meta lines, side chains
(sub-agents) or bookkeeping lines (summaries, snapshots, progress).

Every frame carries a ``source_key`` (line uuid + block index), which is what
makes ingesting the same transcript twice add nothing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sari_core import canonical_root, workspace_hash
from sari_persistence.records import ChatSessionRecord, ExecutionRow, FrameRecord

CLIENT = "claude-code"
PROVIDER = "anthropic"
CLIENT_SUMMARY_TOOL = "client_compaction_summary"


def parse_timestamp(value: Any) -> int:
    """ISO 8601 (``2026-02-01T14:59:02.592Z``) or epoch -> Unix milliseconds; 0 if unknown."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value if value > 1e11 else value * 1000)
    if not isinstance(value, str) or not value:
        return 0
    text = value.strip().replace("Z", "+00:00")
    try:
        return int(datetime.fromisoformat(text).timestamp() * 1000)
    except ValueError:
        return 0


def _result_text(content: Any) -> str:
    """A tool_result's content: a string, or a list of text/image blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    return "" if content is None else json.dumps(content, sort_keys=True, default=str)


@dataclass
class _ToolUse:
    name: str
    arguments: Any
    timestamp: int


@dataclass
class Transcript:
    """What one transcript file holds, in file order."""

    session: ChatSessionRecord
    frames: list[FrameRecord] = field(default_factory=list)
    executions: list[ExecutionRow] = field(default_factory=list)
    skipped_lines: int = 0


def _line_key(entry: dict[str, Any], raw: str) -> str:
    uuid = entry.get("uuid")
    return str(uuid) if uuid else "sha1:" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:20]


def read_transcript(path: Path, session_id: str, cwd: str | None) -> Transcript:
    """Parse a transcript file. Unparseable lines (a line still being written) are skipped."""
    project_root = canonical_root(cwd) if cwd else None
    ws_hash = workspace_hash(cwd) if cwd else None
    entries: list[tuple[dict[str, Any], str]] = []
    skipped = 0
    with path.expanduser().open("r", encoding="utf-8", errors="replace") as handle:
        for raw in handle:
            raw = raw.strip()
            if not raw:
                continue
            try:
                entry = json.loads(raw)
            except ValueError:
                skipped += 1
                continue
            if isinstance(entry, dict):
                entries.append((entry, raw))
    uses: dict[str, _ToolUse] = {}
    created = 0
    model = None
    for entry, _ in entries:
        created = created or parse_timestamp(entry.get("timestamp"))
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        model = model or (message.get("model") if entry.get("type") == "assistant" else None)
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id"):
                uses[str(block["id"])] = _ToolUse(str(block.get("name") or "tool"),
                                                  block.get("input"),
                                                  parse_timestamp(entry.get("timestamp")))
    session = ChatSessionRecord(session_id=session_id, created_at=created, project_root=project_root,
                                llm_provider=PROVIDER, model=model)
    transcript = Transcript(session=session, skipped_lines=skipped)
    for entry, raw in entries:
        _entry_frames(entry, raw, transcript, uses, ws_hash)
    return transcript


def _entry_frames(entry: dict[str, Any], raw: str, transcript: Transcript,
                  uses: dict[str, _ToolUse], ws_hash: str | None) -> None:
    kind = entry.get("type")
    message = entry.get("message")
    if kind not in ("user", "assistant") or not isinstance(message, dict):
        return
    if entry.get("isMeta") or entry.get("isSidechain"):
        return
    session_id = transcript.session.session_id
    key = _line_key(entry, raw)
    stamp = parse_timestamp(entry.get("timestamp"))
    content = message.get("content")
    if isinstance(content, str):
        blocks: list[Any] = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        return
    if entry.get("isCompactSummary"):
        text = "\n".join(_result_text([b]) for b in blocks if isinstance(b, dict))
        transcript.frames.append(FrameRecord(session_id, "tool", text, CLIENT_SUMMARY_TOOL,
                                             None, stamp, f"{key}:0"))
        return
    role = "user" if kind == "user" else "assistant"
    texts: list[str] = []
    first_text = 0

    def flush_text() -> None:
        # Consecutive text blocks become one frame, placed where they were in the message.
        text = "\n".join(part for part in texts if part)
        if text.strip():
            transcript.frames.append(FrameRecord(session_id, role, text, None, None, stamp,
                                                 f"{key}:text{first_text}"))
        texts.clear()

    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        block_type = block.get("type")
        if block_type in ("text", "image"):
            if not texts:
                first_text = index
            texts.append(str(block.get("text", "")) if block_type == "text" else "[image]")
        elif block_type == "tool_use" and block.get("id"):
            flush_text()
            arguments = json.dumps(block.get("input"), sort_keys=True, ensure_ascii=False,
                                   default=str)
            transcript.frames.append(FrameRecord(
                session_id, "tool", arguments, str(block.get("name") or "tool"),
                str(block["id"]), stamp, f"{key}:{index}"))
        elif block_type == "tool_result" and block.get("tool_use_id"):
            flush_text()
            _tool_result(block, index, key, stamp, transcript, uses, ws_hash)
    flush_text()


def _tool_result(block: dict[str, Any], index: int, key: str, stamp: int,
                 transcript: Transcript, uses: dict[str, _ToolUse], ws_hash: str | None) -> None:
    session_id = transcript.session.session_id
    use_id = str(block["tool_use_id"])
    use = uses.get(use_id)
    text = _result_text(block.get("content"))
    failed = bool(block.get("is_error"))
    transcript.frames.append(FrameRecord(
        session_id, "tool", text, use.name if use else None, use_id, stamp, f"{key}:{index}"))
    if use is not None:
        transcript.executions.append(ExecutionRow(
            id=use_id, session_key=f"{CLIENT}:{session_id}", session_id=session_id,
            workspace_hash=ws_hash, tool=use.name, arguments=use.arguments,
            ok=not failed, target=_target_of(use.arguments),
            error_code="TOOL_ERROR" if failed else None, reason_codes=(),
            duration_ms=float(max(0, stamp - use.timestamp)),
            timestamp=use.timestamp or stamp,
            response={"content": text, "is_error": failed}, source=CLIENT))


def _target_of(arguments: Any) -> str | None:
    if not isinstance(arguments, dict):
        return None
    for key in ("file_path", "notebook_path", "path", "pattern", "command", "url"):
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None
