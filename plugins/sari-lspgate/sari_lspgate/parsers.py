"""Turn a command validator's output into diagnostics.

Parsers get the command's stdout and stderr and a function that maps a path as the
tool printed it (relative to its working folder, or absolute) to the workspace-relative
form diagnostics carry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from sari_lspgate.diagnostics import Diagnostic

PathMapper = Callable[[str], str]
Parser = Callable[[str, str, str, PathMapper], list[Diagnostic]]

_CARGO_LEVELS = {"error": "error", "warning": "warning", "note": "information",
                 "help": "hint", "failure-note": "information",
                 "error: internal compiler error": "error"}
_TSC_LINE = re.compile(
    r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\):\s+(?P<sev>error|warning|message)\s+"
    r"(?P<code>TS\d+):\s+(?P<msg>.*)$")
_GO_LINE = re.compile(r"^(?:vet: )?(?P<file>[^\s:#][^:]*\.go):(?P<line>\d+):(?:(?P<col>\d+):)?\s+"
                      r"(?P<msg>.+)$")
_GNU_LINE = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
    r"(?:(?P<sev>error|warning|note|info|fatal error)\s*:\s*)?(?P<msg>.+)$", re.IGNORECASE)
_GNU_SEVERITIES = {"error": "error", "fatal error": "error", "warning": "warning",
                   "note": "information", "info": "information"}


def parse_cargo_json(stdout: str, stderr: str, source: str, to_path: PathMapper
                     ) -> list[Diagnostic]:
    """``cargo check --message-format=json``: one JSON object per line, compiler messages
    with their primary span."""
    found = []
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("reason") != "compiler-message":
            continue
        message = record.get("message") or {}
        spans = [span for span in message.get("spans") or [] if span.get("is_primary")]
        if not spans:
            continue  # "aborting due to N previous errors" and friends point nowhere
        span = spans[0]
        code = (message.get("code") or {}).get("code") or ""
        found.append(Diagnostic(
            path=to_path(str(span.get("file_name", ""))), line=int(span.get("line_start", 1)),
            column=int(span.get("column_start", 1)),
            severity=_CARGO_LEVELS.get(str(message.get("level")), "error"), source=source,
            code=str(code), message=str(message.get("message", ""))))
    return found


def parse_tsc(stdout: str, stderr: str, source: str, to_path: PathMapper) -> list[Diagnostic]:
    """``tsc --noEmit --pretty false``: ``file(line,col): error TS1234: message``."""
    found = []
    for line in (stdout + "\n" + stderr).splitlines():
        match = _TSC_LINE.match(line.rstrip())
        if match is None:
            continue
        severity = {"error": "error", "warning": "warning"}.get(match["sev"], "information")
        found.append(Diagnostic(path=to_path(match["file"].strip()), line=int(match["line"]),
                                column=int(match["col"]), severity=severity, source=source,
                                code=match["code"], message=match["msg"].strip()))
    return found


def parse_go_vet(stdout: str, stderr: str, source: str, to_path: PathMapper
                 ) -> list[Diagnostic]:
    """``go vet``: ``./file.go:line:col: message`` on stderr (``# package`` headers skipped);
    every finding is an error, as go vet's exit status says."""
    found = []
    for line in (stderr + "\n" + stdout).splitlines():
        match = _GO_LINE.match(line.rstrip())
        if match is None:
            continue
        found.append(Diagnostic(path=to_path(match["file"]), line=int(match["line"]),
                                column=int(match["col"] or 1), severity="error", source=source,
                                code="", message=match["msg"].strip()))
    return found


def parse_gnu(stdout: str, stderr: str, source: str, to_path: PathMapper) -> list[Diagnostic]:
    """``file:line[:col]: [error|warning|note:] message``; no severity word means error."""
    found = []
    for line in (stdout + "\n" + stderr).splitlines():
        match = _GNU_LINE.match(line.rstrip())
        if match is None:
            continue
        severity = _GNU_SEVERITIES.get((match["sev"] or "error").lower(), "error")
        found.append(Diagnostic(path=to_path(match["file"]), line=int(match["line"]),
                                column=int(match["col"] or 1), severity=severity, source=source,
                                code="", message=match["msg"].strip()))
    return found


PARSERS: dict[str, Parser] = {
    "cargo-json": parse_cargo_json,
    "tsc": parse_tsc,
    "go-vet": parse_go_vet,
    "gnu": parse_gnu,
}
