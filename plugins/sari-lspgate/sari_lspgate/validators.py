"""What every validator shares: its result value, how it says it could not run, where its
executable is, which files it covers."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from sari_lspgate.diagnostics import Diagnostic

ValidatorKind = Literal["lsp", "command"]


class ValidatorUnavailable(Exception):
    """A validator is missing, did not answer in time, or crashed; the message says which."""

    def __init__(self, reason: str, *, cause: Literal["missing", "timeout", "crashed"]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause


@dataclass
class ValidatorResult:
    """One validator's verdict on one change.

    :ivar files: the files this result speaks for (an LSP server: the changed file; a command:
        every file it reported on, plus the changed file).
    :ivar baseline: diagnostics before the change; None when they are unknown.
    :ivar current: diagnostics after the change.
    """

    validator: str
    kind: ValidatorKind
    status: Literal["ok", "unavailable"] = "ok"
    reason: str = ""
    cause: str = ""
    files: list[str] = field(default_factory=list)
    baseline: list[Diagnostic] | None = None
    current: list[Diagnostic] = field(default_factory=list)
    elapsed_ms: float = 0.0
    restarted: bool = False

    @classmethod
    def unavailable(cls, validator: str, kind: ValidatorKind, error: ValidatorUnavailable,
                    files: list[str], elapsed_ms: float = 0.0) -> ValidatorResult:
        return cls(validator=validator, kind=kind, status="unavailable", reason=error.reason,
                   cause=error.cause, files=files, elapsed_ms=elapsed_ms)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.validator, "kind": self.kind, "status": self.status,
                                "ms": round(self.elapsed_ms, 1)}
        if self.reason:
            data["reason"] = self.reason
        if self.restarted:
            data["restarted"] = True
        return data


def resolve_executable(name: str) -> str | None:
    """The executable's path: as given when it has a folder, else next to this interpreter
    (a venv's ``bin``, where ``pip install sari-lspgate`` put ruff and basedpyright), else PATH."""
    if os.sep in name or (os.altsep and os.altsep in name):
        return name if os.access(name, os.X_OK) else None
    bin_dir = Path(sys.executable).parent
    for candidate in (bin_dir / name, bin_dir / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def matches(relative_path: str, patterns: list[str]) -> bool:
    """Glob patterns matched from the right of a workspace-relative path ('*.py', 'src/*.rs')."""
    path = PurePosixPath(relative_path)
    return any(path.match(pattern) for pattern in patterns)


LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python", ".rs": "rust", ".go": "go", ".ts": "typescript",
    ".tsx": "typescriptreact", ".js": "javascript", ".jsx": "javascriptreact",
    ".mjs": "javascript", ".cjs": "javascript", ".java": "java", ".c": "c", ".h": "c",
    ".cpp": "cpp", ".cc": "cpp", ".hpp": "cpp", ".rb": "ruby", ".lua": "lua",
}


def language_id_for(path: str) -> str:
    return LANGUAGE_IDS.get(PurePosixPath(path).suffix.lower(), "plaintext")
