"""Regex queries in linear time: RE2 (``google-re2``), never a backtracking engine.

A backtracking engine can take exponential time on a pattern such as ``(a+)+$``
and hold every other call meanwhile; RE2 answers in time linear in the text, for
every pattern it accepts. It accepts Python's syntax except what needs
backtracking: backreferences (``\\1``), lookahead and lookbehind (``(?=``,
``(?<=``...), possessive quantifiers and atomic groups, ``\\Z`` (RE2 spells it
``\\z``). Such a pattern is refused with ``INVALID_ARGS`` and a hint naming the
construct and a way around it.

Linear is not yet cheap: the time is the text's length times the size of the compiled
program, and a program can be made huge in a few kilobytes (thousands of nested groups,
counted repetitions of counted repetitions). A pattern compiling to more than
``MAX_PROGRAM_SIZE`` instructions is refused, and patterns run without capture groups
(a search needs where a match starts, never what a group caught), which keeps RE2 on its
DFA instead of the slower engines that track groups.
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


class BytesPattern(Protocol):
    def search(self, data: bytes, pos: int = ...) -> Match | None: ...


_TEXT_ENDS = re.compile(r"\\[Az]")

# RE2's own default memory budget, stated: the compiled program and the DFA's state cache
# share it (a program too large for it is refused by RE2 itself).
MAX_MEMORY_BYTES = 8 << 20
# Instructions of the program as written (its groups capturing). Everyday patterns stay
# under a few hundred; "\w{1000}" is about 3,000 and ".{1000}" about 8,000.
MAX_PROGRAM_SIZE = 20_000


@dataclass(frozen=True)
class Regex:
    """A compiled query: ``pattern`` is the text the client sent (flags not included)."""

    pattern: str
    compiled: Pattern  # for one line of text (match columns)
    on_bytes: BytesPattern  # for whole UTF-8 texts; never matches a line break

    def search(self, text: str) -> Match | None:
        return self.compiled.search(text)

    def lines(self, data: bytes, limit: int | None = None) -> list[int]:
        """1-based numbers of the lines of UTF-8 ``data`` where the pattern matches."""
        if _TEXT_ENDS.search(self.pattern):
            return self._line_by_line(data, limit)
        hits: list[int] = []
        position = line = counted = 0
        while position <= len(data):
            found = self.on_bytes.search(data, position)
            if found is None:
                break
            start = found.start()
            line += data.count(b"\n", counted, start)
            counted = start
            hits.append(line + 1)
            if limit is not None and len(hits) >= limit:
                break
            end_of_line = data.find(b"\n", start)
            if end_of_line == -1:
                break
            position = end_of_line + 1
        return hits

    def _line_by_line(self, data: bytes, limit: int | None) -> list[int]:
        hits = []
        for number, line in enumerate(data.split(b"\n"), 1):
            if self.on_bytes.search(line) is not None:
                hits.append(number)
                if limit is not None and len(hits) >= limit:
                    break
        return hits


def compile_query(pattern: str, *, case_sensitive: bool) -> Regex:
    """Compile a search query (``^``/``$`` match at line breaks), or refuse it."""
    try:
        as_written = re2.compile("(?m)" + pattern, _options(case_sensitive, capture=True))
        _refuse_oversized(pattern, as_written.programsize)
        compiled = re2.compile("(?m)" + pattern, _options(case_sensitive))
        on_bytes = re2.compile(("(?m)" + pattern).encode("utf-8"),
                               _options(case_sensitive, never_nl=True))
    except re2.error as exc:
        raise _refusal(pattern, exc) from None
    except (UnicodeError, TypeError):
        raise SariError(ErrorCode.INVALID_ARGS, "query is not valid text (a lone surrogate "
                        "or another character without a UTF-8 form).",
                        "Send the pattern as plain UTF-8 text.") from None
    return Regex(pattern, compiled, on_bytes)  # pyright: ignore[reportArgumentType] - re2 has no stubs


def _options(case_sensitive: bool, *, capture: bool = False, never_nl: bool = False
             ) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False  # the refusal is the caller's answer, not a log line
    options.max_mem = MAX_MEMORY_BYTES
    options.never_capture = not capture
    options.never_nl = never_nl
    return options


def _refuse_oversized(pattern: str, program_size: int) -> None:
    if program_size <= MAX_PROGRAM_SIZE:
        return
    raise SariError(
        ErrorCode.INVALID_ARGS,
        f"query compiles to {program_size:,} regex instructions, over the "
        f"{MAX_PROGRAM_SIZE:,} a search may run (deeply nested groups or large counted "
        "repetitions such as {1,1000} make a program that big).",
        "Use fewer groups and smaller repetition counts (.* instead of .{1,1000}), or "
        "search for a literal part with kind='text' and read the lines around the hits.",
        details={"program_size": program_size, "max_program_size": MAX_PROGRAM_SIZE})


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
