"""The compaction summary: a pure function of the frames, byte for byte.

Field rules:

- Goal: the latest user directive (client bookkeeping such as slash-command echoes
  is not a directive); else ``(not explicitly stated)``.
- Current task: the latest assistant ``Plan:`` / ``Next:`` line or ``I will ...``
  sentence; else ``(not captured)``.
- Files modified: mutation tools only (Sari's ``edit``/``write``, and the
  ``file_write``/``file_edit``/``file_create``/``splice_patch``/``splice_plan``,
  Claude Code's ``Edit``/``Write``/``MultiEdit``/``NotebookEdit``), path taken from
  the tool frame's JSON content, failed executions excluded; sorted.
- Files mentioned: file-like tokens in user and assistant text; sorted.
- Files pending: only when a ``Files pending:`` / ``Pending files:`` line lists them.
- Key tool executions: the last N execution ids of the compacted window plus every
  failure in it, in the order they ran.

Goal, task and files look at the whole conversation the event carries (window and
retained frames); key executions look at the window, which is what leaves the context.

An earlier summary in the conversation is carried forward (see
:mod:`sari_persistence.carried`): its files and key executions are kept, and its
goal, task and pending files stand until the conversation states new ones.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from sari_persistence.carried import HEADER as HEADER  # re-exported: the block's first line
from sari_persistence.carried import PriorSummary, latest_prior

HONESTY_BLOCK = (
    "BE HONEST: DO YOU HAVE ENOUGH INFORMATION TO CONTINUE?",
    "If NO: query past context + tool results before continuing.",
    "If YES: proceed.",
)
NO_GOAL = "(not explicitly stated)"
NO_TASK = "(not captured)"
NO_PENDING = "(none listed)"

MUTATION_TOOLS = frozenset({
    "edit", "write",
    "file_write", "file_edit", "file_create", "splice_patch", "splice_plan",
    "Edit", "Write", "MultiEdit", "NotebookEdit",
})
_PATH_KEYS = ("path", "file_path", "notebook_path", "filePath", "target")
_BOOKKEEPING_PREFIXES = ("<command-", "<local-command-", "Caveat:")

# Bare names count as files only with these extensions ("e.g." or "p.m." are not files).
KNOWN_EXTENSIONS = frozenset({
    "py", "pyi", "pyx", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "go", "rs",
    "java", "kt", "kts", "scala", "groovy", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs",
    "rb", "php", "swift", "mm", "sh", "bash", "zsh", "fish", "ps1", "bat", "lua",
    "pl", "jl", "dart", "exs", "erl", "hrl", "hs", "ml", "mli", "clj",
    "cljs", "elm", "nim", "zig", "sol", "sql", "md", "mdx", "rst", "txt", "adoc", "tex",
    "json", "jsonl", "json5", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "lock",
    "xml", "xsd", "html", "htm", "css", "scss", "sass", "less", "vue", "svelte", "astro",
    "proto", "graphql", "gql", "tf", "hcl", "gradle", "mk", "cmake", "ipynb", "csv", "tsv",
    "patch", "diff", "log", "properties", "plist", "gitignore", "dockerignore", "editorconfig",
})
KNOWN_NAMES = ("Makefile", "Dockerfile", "Gemfile", "Rakefile", "Procfile", "Justfile",
               "Jenkinsfile", "Containerfile", "Vagrantfile")

_FILE_TOKEN = re.compile(
    r"(?<![\w/.:@-])"
    r"((?:~/|\.{1,2}/|/)?(?:[\w.+-]+/)*"
    r"(?:[\w+-][\w.+-]*\.[A-Za-z][A-Za-z0-9]{0,9}|" + "|".join(KNOWN_NAMES) + r"))"
    r"(?![\w/-])"
)
# At a line start or a sentence start: "Done. Next: run the tests".
_PLAN_LINE = re.compile(
    r"(?:^|(?<=[.!?] ))[ \t]*(?:[-*>#]+[ \t]*)?(?:\*\*)?(?:plan|next(?:[ \t]+steps?)?)(?:\*\*)?[ \t]*:[^\n]*",
    re.IGNORECASE | re.MULTILINE)
# A sentence ends at . ! ? followed by a space or the end ("a.py" does not end it).
_I_WILL = re.compile(r"\bI will\b(?:[^.!?\n]|[.!?](?=[^\s]))*[.!?]?")
_PENDING_LINE = re.compile(
    r"\b(?:files[ \t]+pending|pending[ \t]+files)(?:\*\*)?[ \t]*:(?P<items>[^\n]*)",
    re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")


class FrameLike(Protocol):
    """What the summary reads of a frame (ChatFrame, StoredFrame)."""

    @property
    def role(self) -> str: ...

    @property
    def content(self) -> str: ...

    @property
    def tool_name(self) -> str | None: ...

    @property
    def execution_id(self) -> str | None: ...

    @property
    def sequence_index(self) -> int: ...


def base_tool_name(name: str | None) -> str:
    """``mcp__sari__edit`` -> ``edit``: MCP tools as a client names them."""
    if not name:
        return ""
    if name.startswith("mcp__"):
        return name.rsplit("__", 1)[-1]
    return name


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed, cut to ``limit`` characters with an ellipsis."""
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def normalize_path(path: str, project_root: str | None) -> str:
    """Forward slashes, no leading ``./``, relative to the project when inside it."""
    value = path.strip().strip("`'\"").replace("\\", "/")
    if project_root and value.startswith("/"):
        root = project_root.replace("\\", "/").rstrip("/")
        if value == root:
            return "."
        if value.startswith(root + "/"):
            value = value[len(root) + 1:]
    while value.startswith("./"):
        value = value[2:]
    return os.path.normpath(value).replace("\\", "/") if value else value


def file_tokens(text: str) -> list[str]:
    """File-like tokens of a text: a path with a slash, or a known extension or file name."""
    found = []
    for match in _FILE_TOKEN.finditer(text):
        token = match.group(1)
        name = token.rsplit("/", 1)[-1]
        extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        if "/" in token.strip("/") or extension in KNOWN_EXTENSIONS or name in KNOWN_NAMES:
            found.append(token)
    return found


def json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def content_failed(content: str) -> bool:
    """A tool frame whose JSON content says the call failed (``ok: false`` / ``is_error``)."""
    value = json_object(content)
    return value is not None and (value.get("ok") is False or value.get("is_error") is True)


def mutation_paths(content: str) -> list[str]:
    """Paths a mutation tool frame names in its JSON content."""
    value = json_object(content)
    if value is None:
        return []
    paths = [value[key] for key in _PATH_KEYS if isinstance(value.get(key), str)]
    for change in value.get("changes") or []:
        if isinstance(change, dict) and isinstance(change.get("path"), str):
            paths.append(change["path"])
    return paths


def _goal(frames: Sequence[FrameLike], limit: int) -> str:
    for frame in reversed(frames):
        text = frame.content.strip()
        if frame.role == "user" and text and not text.startswith(_BOOKKEEPING_PREFIXES):
            return one_line(text, limit)
    return NO_GOAL


def _task_in(text: str) -> str | None:
    candidates: list[tuple[int, str]] = []
    for match in _PLAN_LINE.finditer(text):
        # "- **Next:** run it" -> "Next: run it" (bullet and bold markers dropped).
        head, _, tail = match.group(0).partition(":")
        head = head.replace("**", "").strip().lstrip("-*># \t")
        tail = tail.strip().removeprefix("**").strip()
        if not tail:
            # "Plan:" alone on its line: the plan is on the next non-empty line.
            rest = text[match.end():].lstrip("\n")
            tail = rest.split("\n", 1)[0].strip()
        candidates.append((match.start(), f"{head}: {tail}".strip()))
    for match in _I_WILL.finditer(text):
        candidates.append((match.start(), match.group(0).strip()))
    return max(candidates)[1] if candidates else None


def _current_task(frames: Sequence[FrameLike], limit: int) -> str:
    for frame in reversed(frames):
        if frame.role == "assistant":
            task = _task_in(frame.content)
            if task:
                return one_line(task, limit)
    return NO_TASK


def _pending(frames: Sequence[FrameLike], project_root: str | None) -> str:
    for frame in reversed(frames):
        if frame.role not in ("user", "assistant"):
            continue
        matches = list(_PENDING_LINE.finditer(frame.content))
        if not matches:
            continue
        items = {normalize_path(token, project_root)
                 for token in file_tokens(matches[-1].group("items"))}
        items.discard("")
        return _list(items) if items else NO_PENDING
    return NO_PENDING


def _list(items: Iterable[str]) -> str:
    return "[" + ", ".join(sorted(set(items))) + "]"


def failed_in(frames: Iterable[FrameLike], failed_execution_ids: Iterable[str] = ()) -> set[str]:
    """Execution ids that failed: known failures plus tool frames saying so themselves."""
    failed = set(failed_execution_ids)
    for frame in frames:
        if frame.role == "tool" and frame.execution_id and content_failed(frame.content):
            failed.add(frame.execution_id)
    return failed


def key_executions(window: Sequence[FrameLike], failed: set[str], last_n: int,
                   carried: Sequence[str] = ()) -> list[str]:
    """The last ``last_n`` executions and every failure; ``carried`` ones ran before them."""
    ordered: list[str] = list(dict.fromkeys(carried))
    for frame in window:
        if frame.role == "tool" and frame.execution_id and frame.execution_id not in ordered:
            ordered.append(frame.execution_id)
    keep = set(ordered[-last_n:] if last_n > 0 else []) | (failed & set(ordered))
    return [execution_id for execution_id in ordered if execution_id in keep]


def build_summary(window: Sequence[FrameLike], retained: Sequence[FrameLike] = (), *,
                  project_root: str | None = None,
                  failed_execution_ids: Iterable[str] = (),
                  key_execution_count: int = 5, field_chars: int = 300) -> str:
    """The summary block for a compaction (no trailing newline)."""
    window = sorted(window, key=lambda frame: frame.sequence_index)
    conversation = sorted([*window, *retained], key=lambda frame: frame.sequence_index)
    prior = latest_prior(conversation) or PriorSummary()
    failed = failed_in(window, failed_execution_ids) | (
        set(failed_execution_ids) & set(prior.key_executions))
    modified: set[str] = set()
    mentioned: set[str] = set()
    for frame in conversation:
        if frame.role in ("user", "assistant"):
            mentioned.update(normalize_path(token, project_root)
                             for token in file_tokens(frame.content))
        elif base_tool_name(frame.tool_name) in MUTATION_TOOLS and not (
                frame.execution_id in failed or content_failed(frame.content)):
            modified.update(normalize_path(path, project_root)
                            for path in mutation_paths(frame.content))
    modified.update(prior.modified)
    mentioned.update(prior.mentioned)
    modified.discard("")
    mentioned.discard("")
    goal = _goal(conversation, field_chars)
    task = _current_task(conversation, field_chars)
    pending = _pending(conversation, project_root)
    keys = key_executions(window, failed, key_execution_count, prior.key_executions)
    lines = [
        HEADER,
        f"Goal: {prior.goal if goal == NO_GOAL and prior.goal else goal}",
        f"Current task: {prior.task if task == NO_TASK and prior.task else task}",
        f"Files modified: {_list(modified)}",
        f"Files mentioned: {_list(mentioned)}",
        f"Files pending: {prior.pending if pending == NO_PENDING and prior.pending else pending}",
        f"Key tool executions: {_list_ordered(keys)}",
        *HONESTY_BLOCK,
    ]
    return "\n".join(lines)


def _list_ordered(items: Sequence[str]) -> str:
    return "[" + ", ".join(items) + "]"
