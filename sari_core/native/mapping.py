"""The Sari call that stands for a call of a client's own tool.

The rules (docs/guide/hooks.md repeats them):

* ``Read(file_path, offset, limit)`` is ``read(mode="file", target=...)`` with the same
  ``offset`` (the first line shown, from 1, in both) and ``limit``.
* ``Grep(pattern, path, glob, type, -i, head_limit)`` is ``search(kind="regex")`` limited
  to ``path`` and ``glob`` (or ``type``) by ``path_glob``, case-insensitive with ``-i``.
* ``Glob(pattern, path)`` is ``search(kind="path")`` for the pattern's longest literal part.
* ``Bash``: ``cat``/``head``/``tail``/``sed -n`` of one file is a ``read`` of those lines;
  ``grep``/``rg``/``ugrep`` is a regex ``search`` (see :mod:`sari_core.native.shell`);
  ``ls``, ``wc``, ``find``, ``bfs`` show no file content and pass; any other command passes.
* ``Edit`` is ``edit``; ``Write`` is ``write``; ``MultiEdit`` and ``NotebookEdit`` are a
  ``write`` of what the file would hold after them (the notebook: as it is now). Each is
  asked of the policies only (``apply=False``): the client writes the file itself.

A path is taken relative to the workspace when it lies inside it; outside, it is kept
absolute, so a policy that refuses by name (a secret file) still sees it, and the
engine's own refusal (outside the workspace) leaves the call to the client.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sari_core.native.calls import NativeCall
from sari_core.native.shell import FileRead, Listing, TextSearch, shell_request

MAX_SEARCH_LIMIT = 50
_GLOB_CHARS = re.compile(r"[*?\[\]{}]")
# Grep's ``type`` names the files of a language; the common ones as globs.
_TYPE_GLOBS = {"py": "*.py", "js": "*.js", "ts": "*.ts", "rust": "*.rs", "go": "*.go",
               "java": "*.java", "c": "*.c", "cpp": "*.cpp", "rb": "*.rb", "md": "*.md",
               "json": "*.json", "yaml": "*.yaml", "toml": "*.toml", "sh": "*.sh"}
SariTool = Literal["read", "search", "edit", "write"]
# Files Claude Code's Read renders itself (notebook cells, PDF pages, images).
RENDERED_BY_THE_CLIENT = (".ipynb", ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp")


@dataclass(frozen=True)
class SariRequest:
    """The Sari call for a native one.

    :ivar tool: ``read``, ``search``, ``edit`` or ``write``.
    :ivar arguments: its arguments, as a model would pass them to Sari's tool.
    :ivar path: the file on disk a read or mutation names (None for a search).
    :ivar first: a read's first line (1-based), as the native tool would show it.
    :ivar count: how many lines the native call asks for (None: the client's own page).
    :ivar cap: the native call's own cap on search output lines (None: none).
    :ivar content_mode: whether the native search shows matching lines (not only names).
    """

    tool: SariTool
    arguments: dict[str, Any]
    path: Path | None = None
    first: int = 1
    count: int | None = None
    cap: int | None = None
    content_mode: bool = False


@dataclass(frozen=True)
class Untouched:
    """A native call Sari has nothing to say about; ``reason`` says why, in a few words."""

    reason: str


def _absolute(file_path: str, cwd: str | None) -> str:
    if posixpath.isabs(file_path) or cwd is None:
        return posixpath.normpath(file_path)
    return posixpath.normpath(posixpath.join(cwd, file_path))


def workspace_target(file_path: str, cwd: str | None, root: Path,
                     recorded_root: str | None = None) -> tuple[str, Path]:
    """The target to name in Sari's call (relative inside the workspace, else absolute),
    and the file on disk.

    :param recorded_root: the folder a recorded session ran in, which the workspace at
        ``root`` stands for (a replay): paths under it are taken as paths under ``root``.
    """
    absolute = _absolute(file_path, cwd)
    if recorded_root and posixpath.isabs(absolute):
        inside = posixpath.relpath(absolute, posixpath.normpath(recorded_root))
        if inside != ".." and not inside.startswith("../"):
            absolute = posixpath.normpath(posixpath.join(root.as_posix(), inside))
    root_text = root.as_posix()
    relative = posixpath.relpath(absolute, root_text) if posixpath.isabs(absolute) else absolute
    if relative == ".." or relative.startswith("../"):
        return absolute, Path(absolute)
    return relative, root / relative


def _scope_glob(path: str | None, glob: str | None, call: NativeCall, root: Path) -> str | None:
    """The ``path_glob`` for a search limited to ``path`` and ``glob``."""
    parts: list[str] = []
    if path:
        target, on_disk = workspace_target(path, call.cwd, root, call.recorded_root)
        if posixpath.isabs(target):
            return target  # outside the workspace: nothing matches, the engine says so
        if target != ".":
            parts.append(target)
            if not glob and on_disk.is_dir():
                parts.append("**")
    if glob:
        parts.append(glob if "/" in glob else f"**/{glob}" if parts or "**" not in glob
                     else glob)
    return "/".join(parts) if parts else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _read(call: NativeCall, root: Path) -> SariRequest | Untouched:
    file_path = call.input.get("file_path")
    if not isinstance(file_path, str) or not file_path:
        return Untouched("no file_path")
    if file_path.lower().endswith(RENDERED_BY_THE_CLIENT):
        # Shown as cells, pages or pictures, not as the lines Sari would count.
        return Untouched("a notebook, PDF or image the client renders itself")
    target, on_disk = workspace_target(file_path, call.cwd, root, call.recorded_root)
    arguments: dict[str, Any] = {"mode": "file", "target": target}
    offset, limit = _int(call.input.get("offset")), _int(call.input.get("limit"))
    first = offset if offset and offset > 1 else 1
    if first > 1:
        arguments["offset"] = first
    if limit and limit > 0:
        arguments["limit"] = limit
    return SariRequest("read", arguments, on_disk, first, limit if limit and limit > 0 else None)


def _file_read(read: FileRead, call: NativeCall, root: Path) -> SariRequest | Untouched:
    target, on_disk = workspace_target(read.path, call.cwd, root, call.recorded_root)
    first, count = read.first, read.count
    if read.last is not None:
        try:
            with on_disk.open("rb") as handle:
                total = sum(1 for _ in handle)
        except OSError:
            return Untouched("tail of a file that cannot be opened")
        first, count = max(1, total - read.last + 1), read.last
    arguments: dict[str, Any] = {"mode": "file", "target": target}
    if first > 1:
        arguments["offset"] = first
    if count is not None:
        arguments["limit"] = count
    return SariRequest("read", arguments, on_disk, first, count)


def _search(pattern: str, path: str | None, glob: str | None, ignore_case: bool,
            call: NativeCall, root: Path, cap: int | None, content: bool) -> SariRequest:
    arguments: dict[str, Any] = {"query": pattern, "kind": "regex",
                                 "case_sensitive": not ignore_case}
    scope = _scope_glob(path, glob, call, root)
    if scope:
        arguments["path_glob"] = scope
    if cap:
        arguments["limit"] = min(cap, MAX_SEARCH_LIMIT)
    return SariRequest("search", arguments, cap=cap, content_mode=content)


def _grep(call: NativeCall, root: Path) -> SariRequest | Untouched:
    pattern = call.input.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return Untouched("no pattern")
    glob = call.input.get("glob")
    kind = call.input.get("type")
    if not isinstance(glob, str) or not glob:
        glob = _TYPE_GLOBS.get(kind) if isinstance(kind, str) else None
    path = call.input.get("path")
    head = _int(call.input.get("head_limit"))
    content = call.input.get("output_mode") == "content"
    return _search(pattern, path if isinstance(path, str) else None, glob,
                   bool(call.input.get("-i")), call, root, head if head and head > 0 else None,
                   content)


def _glob(call: NativeCall, root: Path) -> SariRequest | Untouched:
    pattern = call.input.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return Untouched("no pattern")
    literals = [part for part in _GLOB_CHARS.split(pattern.rsplit("/", 1)[-1]) if part]
    if not literals:
        return Untouched("a pattern with no literal part")
    path = call.input.get("path")
    arguments: dict[str, Any] = {"query": max(literals, key=len), "kind": "path"}
    scope = _scope_glob(path if isinstance(path, str) else None, pattern, call, root)
    if scope:
        arguments["path_glob"] = scope
    return SariRequest("search", arguments)


def _bash(call: NativeCall, root: Path) -> SariRequest | Untouched:
    command = call.input.get("command")
    if isinstance(command, list):  # Codex may send argv
        command = " ".join(json.dumps(word) if " " in str(word) else str(word)
                           for word in command)
    if not isinstance(command, str) or not command.strip():
        return Untouched("no command")
    request = shell_request(command)
    if request is None:
        return Untouched("a command that is not a plain read or search")
    if isinstance(request, Listing):
        return Untouched(f"{request.program} shows no file content")
    if isinstance(request, FileRead):
        return _file_read(request, call, root)
    assert isinstance(request, TextSearch)
    if len(request.paths) > 1:
        return Untouched("a search of several paths")
    pattern = re.escape(request.pattern) if request.fixed else request.pattern
    path = request.paths[0] if request.paths else None
    return _search(pattern, path, None, request.ignore_case, call, root, request.head,
                   not request.files_only)


def _edited_text(on_disk: Path, edits: list[Mapping[str, Any]]) -> str | None:
    try:
        text = on_disk.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for edit in edits:
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or old not in text:
            return None  # the client will refuse it itself
        text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
    return text


def _mutation(call: NativeCall, root: Path) -> SariRequest | Untouched:
    key = "notebook_path" if call.tool == "NotebookEdit" else "file_path"
    file_path = call.input.get(key)
    if not isinstance(file_path, str) or not file_path:
        return Untouched(f"no {key}")
    target, on_disk = workspace_target(file_path, call.cwd, root, call.recorded_root)
    if call.tool == "Write":
        content = call.input.get("content")
        if not isinstance(content, str):
            return Untouched("no content")
        return SariRequest("write", {"path": target, "content": content}, on_disk)
    if call.tool == "Edit":
        old, new = call.input.get("old_string"), call.input.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return Untouched("no old_string or new_string")
        arguments: dict[str, Any] = {"path": target, "old_string": old, "new_string": new}
        if call.input.get("replace_all"):
            try:
                arguments["expected_occurrences"] = max(
                    1, on_disk.read_text(encoding="utf-8").count(old))
            except (OSError, UnicodeDecodeError):
                return Untouched("an edit of a file that cannot be read")
        return SariRequest("edit", arguments, on_disk)
    if call.tool == "MultiEdit":
        edits = call.input.get("edits")
        text = _edited_text(on_disk, [e for e in edits if isinstance(e, Mapping)]) \
            if isinstance(edits, list) else None
        if text is None:
            return Untouched("edits the client will refuse itself")
        return SariRequest("write", {"path": target, "content": text}, on_disk)
    try:  # NotebookEdit: the policies that decide by path see the notebook as it is
        current = on_disk.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Untouched("a notebook that cannot be read")
    return SariRequest("write", {"path": target, "content": current}, on_disk)


_TOOLS = {"Read": _read, "Grep": _grep, "Glob": _glob, "Bash": _bash, "shell": _bash,
          "Edit": _mutation, "MultiEdit": _mutation, "Write": _mutation,
          "NotebookEdit": _mutation}
NATIVE_TOOLS = tuple(_TOOLS)


def sari_request(call: NativeCall, root: Path) -> SariRequest | Untouched:
    """The Sari call for ``call`` in the workspace at ``root``, or why there is none."""
    mapper = _TOOLS.get(call.tool)
    if mapper is None:
        return Untouched(f"{call.tool} is not a read, search or edit")
    return mapper(call, root)
