"""Read a Claude Code session transcript: the tool calls and what the model got back.

Claude Code keeps each session as JSON lines (``~/.claude/projects/<project>/<id>.jsonl``).
An assistant line carries ``tool_use`` blocks (``id``, ``name``, ``input``); a later user
line carries the matching ``tool_result`` (``tool_use_id``, ``content`` as a string or a
list of text blocks, ``is_error``). Other lines (summaries, snapshots, hook reports,
metadata) are skipped, and so are a sub-agent's lines (``isSidechain``): the model that
paid for them is another conversation.

A line that is not JSON is an error naming the file and line, except the last line of
the file when it has no newline: Claude Code may still have been writing it, so it is
left out and said so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TranscriptError(ValueError):
    """A transcript that cannot be read, with the file and line at fault."""

    def __init__(self, path: Path, line: int | None, message: str, hint: str = "") -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}" + (f" ({hint})" if hint else ""))
        self.path = path
        self.line = line
        self.hint = hint


@dataclass
class RecordedCall:
    """One tool call of the session, with the result the model was shown.

    :ivar line: the transcript line of the ``tool_use`` block (1-based).
    :ivar result: the result text, ``None`` when the transcript holds no result.
    """

    line: int
    tool_use_id: str
    name: str
    input: dict[str, Any]
    result: str | None = None
    is_error: bool = False


@dataclass
class Transcript:
    """One session: where it ran and the calls it made, in order."""

    path: Path
    session_id: str
    cwd: str | None
    git_branch: str | None
    started: str | None
    calls: list[RecordedCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def result_text(content: Any) -> str:
    """A ``tool_result``'s content as the text the model read (images count as nothing)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(block.get("text", "")) for block in content
                         if isinstance(block, dict) and block.get("type") == "text")
    return ""


def _records(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TranscriptError(path, None, f"cannot read the transcript: {exc.strerror}") from exc
    text = raw.decode("utf-8", errors="replace")
    lines = text.split("\n")
    unterminated_last = not text.endswith("\n")
    records: list[tuple[int, dict[str, Any]]] = []
    notes: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines) and unterminated_last:
                notes.append(f"line {number} is incomplete (the session was still being "
                             "written); it was left out")
                continue
            raise TranscriptError(path, number, f"not a JSON object ({exc.msg})",
                                  "a Claude Code transcript has one JSON object per line") \
                from exc
        if not isinstance(value, dict):
            raise TranscriptError(path, number, f"expected a JSON object, found "
                                  f"{type(value).__name__}",
                                  "a Claude Code transcript has one JSON object per line")
        records.append((number, value))
    return records, notes


def read_transcript(path: Path) -> Transcript:
    """Parse one transcript file.

    :param path: the ``.jsonl`` file.
    :return: the :class:`Transcript`; calls without a recorded result keep ``result=None``.
    :raises TranscriptError: unreadable file, a line that is not a JSON object, or a file
        with no Claude Code session line in it.
    """
    records, notes = _records(path)
    transcript: Transcript | None = None
    by_id: dict[str, RecordedCall] = {}
    skipped_sidechain = 0
    for number, record in records:
        kind = record.get("type")
        if kind not in ("user", "assistant"):
            continue
        if transcript is None:
            transcript = Transcript(path, str(record.get("sessionId") or path.stem),
                                    record.get("cwd"), record.get("gitBranch"),
                                    record.get("timestamp"))
        if record.get("isSidechain"):
            skipped_sidechain += 1
            continue
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if kind == "assistant" and block.get("type") == "tool_use":
                call = RecordedCall(number, str(block.get("id") or f"line-{number}"),
                                    str(block.get("name") or "?"),
                                    block["input"] if isinstance(block.get("input"), dict)
                                    else {})
                by_id[call.tool_use_id] = call
                transcript.calls.append(call)
            elif kind == "user" and block.get("type") == "tool_result":
                found = by_id.get(str(block.get("tool_use_id")))
                if found is not None:
                    found.result = result_text(block.get("content"))
                    found.is_error = bool(block.get("is_error"))
    if transcript is None:
        raise TranscriptError(path, None, "no user or assistant line found",
                              "is this a Claude Code session transcript (.jsonl)?")
    transcript.notes.extend(notes)
    if skipped_sidechain:
        transcript.notes.append(f"{skipped_sidechain} sub-agent lines left out (another "
                                "conversation)")
    return transcript
