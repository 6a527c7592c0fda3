"""Regex queries in linear time: RE2 (``google-re2``), never a backtracking engine.

A backtracking engine can take exponential time on a pattern such as ``(a+)+$``
and hold every other call meanwhile; RE2 answers in time linear in the text, for
every pattern it accepts. It accepts Python's syntax except what needs
backtracking: backreferences (``\\1``), lookahead and lookbehind (``(?=``,
``(?<=``...), possessive quantifiers and atomic groups, ``\\Z`` (RE2 spells it
``\\z``). Such a pattern is refused with ``INVALID_ARGS`` and a hint naming the
construct and a way around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import re2

from sari_core.errors import ErrorCode, SariError

# What RE2 cannot do, recognised in the pattern so the hint can name it.
_UNSUPPORTED = (
    (re.compile(r"\\[1-9]|\(\?P="), "backreferences"),
    (re.compile(r"\(\?<?[=!]"), "lookahead and lookbehind"),
    (re.compile(r"\(\?>|[*+?}][+]"), "atomic groups and possessive quantifiers"),
    (re.compile(r"\\Z"), r"\Z (write \z)"),
)


class Match(Protocol):
    def start(self) -> int: ...


class Pattern(Protocol):
    def search(self, text: str) -> Match | None: ...


@dataclass(frozen=True)
class Regex:
    """A compiled query: ``pattern`` is the text the client sent (flags not included)."""

    pattern: str
    compiled: Pattern

    def search(self, text: str) -> Match | None:
        return self.compiled.search(text)


def compile_query(pattern: str, *, case_sensitive: bool) -> Regex:
    """Compile a search query (``^``/``$`` match at line breaks), or refuse it."""
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False  # the refusal is the caller's answer, not a log line
    try:
        compiled = re2.compile("(?m)" + pattern, options)
    except re2.error as exc:
        raise _refusal(pattern, exc) from None
    except (UnicodeError, TypeError):
        raise SariError(ErrorCode.INVALID_ARGS, "query is not valid text (a lone surrogate "
                        "or another character without a UTF-8 form).",
                        "Send the pattern as plain UTF-8 text.") from None
    return Regex(pattern, compiled)


def _refusal(pattern: str, exc: Exception) -> SariError:
    reason = exc.args[0] if exc.args else exc
    reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    feature = next((name for rx, name in _UNSUPPORTED if rx.search(pattern)), None)
    if feature is not None:
        return SariError(
            ErrorCode.INVALID_ARGS,
            f"query uses {feature}, which the linear-time regex engine does not support "
            f"({reason}).",
            "Rewrite the pattern without it (match the repeated text explicitly, or search "
            "for a literal part with kind='text' and read the lines around the hits).",
            details={"unsupported": feature})
    return SariError(ErrorCode.INVALID_ARGS, f"query is not a valid regex: {reason}.",
                     "Fix the pattern, or search for the literal text with kind='text'.")
