"""Minimal Claude Code transcripts, written line by line as Claude Code writes them."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

SESSION = "0a1b2c3d-0000-4000-8000-00000000e2e5"
STARTED = "2030-01-01T10:00:00.000Z"
COMMITTED = "2020-01-02T09:00:00+00:00"  # before every session, recorded or written


def git_workspace(root: Path, files: dict[str, bytes | str]) -> Path:
    """A git repository with ``files`` committed (before :data:`STARTED`)."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    env = {"GIT_AUTHOR_DATE": COMMITTED, "GIT_COMMITTER_DATE": COMMITTED,
           "GIT_AUTHOR_NAME": "Sari Tests", "GIT_AUTHOR_EMAIL": "tests@sari.invalid",
           "GIT_COMMITTER_NAME": "Sari Tests", "GIT_COMMITTER_EMAIL": "tests@sari.invalid",
           "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(root)}
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", "commit", "-qm", "workspace"]):
        subprocess.run(argv, cwd=root, check=True, env=env, capture_output=True)
    return root


def tree_state(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root`` (``.git`` included): content hash and mtime."""
    return {str(path.relative_to(root)): (hashlib.sha256(path.read_bytes()).hexdigest(),
                                          path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if path.is_file()}


class TranscriptWriter:
    """Builds a transcript: each :meth:`call` is an assistant tool_use line and its result."""

    def __init__(self, cwd: Path, branch: str = "main") -> None:
        self.cwd = cwd
        self.branch = branch
        self.lines: list[dict[str, Any]] = [{"type": "summary", "summary": "a session",
                                             "leafUuid": "x"}]
        self._count = 0
        self.user("Please look at the code.")

    def _base(self, kind: str) -> dict[str, Any]:
        self._count += 1
        return {"parentUuid": None, "isSidechain": False, "userType": "external",
                "cwd": str(self.cwd), "sessionId": SESSION, "version": "2.1.330",
                "gitBranch": self.branch, "type": kind, "uuid": f"u-{self._count}",
                "timestamp": STARTED}

    def user(self, text: str) -> None:
        self.lines.append({**self._base("user"), "message": {"role": "user", "content": text}})

    def call(self, name: str, arguments: dict[str, Any], result: str | None,
             is_error: bool = False) -> None:
        tool_id = f"toolu_{self._count:03d}"
        self.lines.append({**self._base("assistant"), "message": {
            "role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": name,
                                              "input": arguments}]}})
        if result is not None:
            block = {"type": "tool_result", "tool_use_id": tool_id,
                     "content": [{"type": "text", "text": result}], "is_error": is_error}
            self.lines.append({**self._base("user"),
                               "message": {"role": "user", "content": [block]}})

    def write(self, path: Path, tail: str = "") -> Path:
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines) + tail)
        return path


def numbered(text: str) -> str:
    """A file's text as Claude Code's Read shows it."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), 1))
