"""The one exception that crosses from the engine to the kernel, and the error codes.

Policies never raise to refuse (they return verdicts); the engine raises
:class:`SariError` for bad input (a path outside the workspace, a missing file)
and the kernel turns it into a structured ``ok: false`` response.
"""

from __future__ import annotations

from typing import Any

from sari_core.models import NextCall


class ErrorCode:
    """Error codes of ``error.code`` that the kernel and engine use."""

    INVALID_ARGS = "INVALID_ARGS"
    PATH_OUTSIDE_WORKSPACE = "PATH_OUTSIDE_WORKSPACE"
    PROTECTED_PATH = "PROTECTED_PATH"
    NOT_FOUND = "NOT_FOUND"
    BINARY_FILE = "BINARY_FILE"
    FILE_TOO_LARGE = "FILE_TOO_LARGE"
    NOT_A_FILE = "NOT_A_FILE"
    SYMBOL_AMBIGUOUS = "SYMBOL_AMBIGUOUS"
    GIT_UNAVAILABLE = "GIT_UNAVAILABLE"
    NOT_A_GIT_REPOSITORY = "NOT_A_GIT_REPOSITORY"
    EDIT_NO_MATCH = "EDIT_NO_MATCH"
    EDIT_AMBIGUOUS = "EDIT_AMBIGUOUS"
    PLUGIN_ERROR = "PLUGIN_ERROR"
    SESSION_ID_REQUIRED = "SESSION_ID_REQUIRED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    MUTATION_VETOED = "MUTATION_VETOED"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    BUSY = "BUSY"
    NO_WORKSPACE = "NO_WORKSPACE"


class SariError(Exception):
    """A refusal with an actionable message, a hint and ready-to-run next calls."""

    def __init__(
        self,
        code: str,
        message: str,
        hint: str = "",
        next_calls: list[NextCall] | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.next_calls = list(next_calls or [])
        self.details = dict(details or {})
