"""The four read modes: ``file``, ``symbol``, ``snippet`` and ``diff_preview``.

Every mode selects a range of lines, then the same window applies: ``offset`` is
the first line of that range shown (counted from 1, as Claude Code's Read counts a
file's lines; 0 is the start too), ``limit`` caps how many are returned, and
``max_preview_chars`` is a hard cap on the characters returned. A read within
its limits is returned whole (``truncated`` and ``preview_degraded`` false); when
the character cap cuts lines ``truncated`` is true, and when it has to cut inside
a line ``preview_degraded`` is true too. ``meta.next_offset`` is the ``offset``
of the next page when lines remain.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from sari_core.engine.changes.gitdiff import diff_preview
from sari_core.engine.files.paths import PathGuard, ResolvedPath
from sari_core.engine.files.streaming import stream_range
from sari_core.engine.files.textfile import (
    MAX_READ_BYTES,
    TextFile,
    count_lines,
    head_lines,
    language_of,
    load_fd,
    split_lines,
    too_large,
)
from sari_core.engine.index.names import folded_name
from sari_core.engine.index.store import IndexStore, SymbolHit
from sari_core.engine.python.decorated import is_overload
from sari_core.engine.python.decorators import decorated_start
from sari_core.errors import ErrorCode, SariError
from sari_core.models import Location, NextCall, ReadCall, ReadResult

# A read that sets no cap must reach the model whole: Claude Code shows an MCP result of more
# than 50,000 characters only as a 2 KB preview and a file to read, a turn more. So the
# default cap counts what the model is shown of each line, its number and a tab too, and
# leaves 2,000 characters for the header above them. (A client can be told to take more, but
# a longer page shows an agent more lines than the turns it saves cost: docs/model-text.md.)
DEFAULT_SHOWN_CHARS = 48_000
HARD_READ_BYTES = 64 * 1024 * 1024  # even a paginated read stops here
CONTEXT_LINES = 2
MAX_LEADING_LINES = 20
AMBIGUITY_LIST = 10
_LEADING = re.compile(r"\s*(@|#|//|/\*|\*|///|--|;)")


@dataclass(frozen=True)
class Window:
    text: str
    start: int
    end: int
    truncated: bool
    degraded: bool
    next_offset: int | None


def window(lines: list[str], first: int, last: int, call: ReadCall) -> Window:
    """Lines ``first..last`` (1-based, inclusive) after offset, limit and the char cap."""
    start = first + call.skipped_lines
    asked = last if call.limit is None else min(last, start + call.limit - 1)
    stop = asked
    cap, numbered = _cap(call)
    if call.preview_mode == "none" or start > stop:
        return Window("", start, start - 1, False, False, None)
    # The common case: the whole range fits under the cap, one slice and one join. Every
    # line has at least one character (three where shown numbered: a digit, a tab and its
    # end), so more lines than that share of the cap can never fit, and are not joined.
    most = cap // 3 if numbered else cap
    text = "".join(lines[start - 1:stop]) if stop - start < most else None
    if text is not None and len(text) + (_numbers(start, stop) if numbered else 0) <= cap:
        end, degraded = stop, False
    else:
        text, end, degraded = _capped(lines, start, stop, cap, numbered)
    truncated = end < asked or degraded
    remaining = end < last
    next_offset = end - first + 2 if remaining else None  # the next line, counted from 1
    return Window(text, start, end, truncated, degraded, next_offset)


def _cap(call: ReadCall) -> tuple[int, bool]:
    """The read's cap, and whether it counts each line's number and tab: the call's own
    ``max_preview_chars`` counts its characters; the default, what the model is shown."""
    if call.max_preview_chars:
        return call.max_preview_chars, False
    return DEFAULT_SHOWN_CHARS, True


def _numbers(first: int, last: int) -> int:
    """Characters the numbers and tabs of lines ``first..last`` add where they are shown."""
    total, digits = 0, len(str(first))
    while first <= last:
        upto = min(last, 10 ** digits - 1)
        total += (upto - first + 1) * (digits + 1)
        first, digits = upto + 1, digits + 1
    return total


def _capped(lines: list[str], start: int, stop: int, cap: int,
            numbered: bool = False) -> tuple[str, int, bool]:
    """The whole lines from ``start`` that fit in ``cap`` characters, counting each line's
    number and tab when ``numbered`` (text, last line, whether a single over-long line had
    to be cut); lines ``start..stop`` are known not to fit."""
    pieces: list[str] = []
    used = 0
    for number in range(start, stop + 1):
        line = lines[number - 1]
        size = len(line) + (len(str(number)) + 1 if numbered else 0)
        if used + size > cap:
            if not pieces:  # a single line longer than the cap: cut inside it
                return line[:cap], number, True
            return "".join(pieces), number - 1, False
        pieces.append(line)
        used += size
    return "".join(pieces), stop, False


def _whole_file(text: str, call: ReadCall) -> Window | None:
    """What :func:`window` gives for every line of ``text`` when no offset or limit is set
    and the text fits the character cap; None otherwise."""
    cap, numbered = _cap(call)
    if call.preview_mode == "none" or len(text) > cap:
        return None
    lines = count_lines(text)
    shown = len(text) + (_numbers(1, lines) if numbered else 0)
    return None if shown > cap else Window(text, 1, lines, False, False, None)


class Reader:
    """Serves :class:`ReadCall` for every mode."""

    def __init__(self, guard: PathGuard, store: IndexStore,
                 ensure_symbols: Callable[[], bool]) -> None:
        self.guard = guard
        self.store = store
        self.ensure_symbols = ensure_symbols  # waits for the index; True when it is complete

    def read(self, call: ReadCall) -> ReadResult:
        if call.mode == "diff_preview":
            return self._diff(call)
        if call.mode == "symbol":
            return self._symbol(call)
        target = self.guard.resolve(call.target)
        whole_file = call.mode == "file" and call.limit is None
        fd = self.guard.open_file(target.root_index, target.rel, target.display)
        size = _size(fd)
        if size > HARD_READ_BYTES and not whole_file:
            return self._streamed(target, fd, call)
        text = self._load(target, whole_file, fd)
        if call.mode == "file" and not call.skipped_lines and call.limit is None:
            whole = _whole_file(text.text, call)
            if whole is not None:  # the window of every line, without splitting them
                return self._result(target, text, whole, count_lines(text.text), {})
        total = count_lines(text.text)
        if call.mode == "snippet":
            first = call.start_line or 1
            if first > max(total, 1):
                raise SariError(ErrorCode.INVALID_ARGS, f"start_line {first} is past the end of "
                                f"{target.display!r} ({total} lines).",
                                f"Use a start_line between 1 and {max(total, 1)}.",
                                [_snippet_call(target.display, max(total - 20, 1), max(total, 1))])
            last = min(call.end_line or first, total)
            context = call.context_lines or 0
            first, last = max(1, first - context), min(total, last + context)
            needed = last
        else:
            first, last = 1, total
            if call.skipped_lines >= total > 0:
                raise SariError(ErrorCode.INVALID_ARGS, f"offset {call.offset} is past the end "
                                f"of {target.display!r} ({total} lines).",
                                f"Use an offset from 1 to {total}: the first line to show.",
                                [NextCall(tool="read", arguments={
                                    "mode": call.mode, "target": call.target,
                                    "offset": max(total - 19, 1)})])
            needed = last if call.limit is None else min(last, call.skipped_lines + call.limit)
        # The window never looks past line `needed`: the lines after it are not split.
        lines = head_lines(text.text, needed)
        return self._result(target, text, window(lines, first, last, call), total, {})

    def _load(self, target: ResolvedPath, whole_file: bool, fd: int | None = None) -> TextFile:
        if fd is None:
            fd = self.guard.open_file(target.root_index, target.rel, target.display)
        if whole_file and _size(fd) > MAX_READ_BYTES:
            size = _size(fd)
            os.close(fd)
            raise too_large(target.display, size, MAX_READ_BYTES)
        loaded = load_fd(fd, target.display, max_bytes=HARD_READ_BYTES)
        if whole_file and len(loaded.data) > MAX_READ_BYTES:
            raise too_large(target.display, len(loaded.data), MAX_READ_BYTES)
        return loaded

    def _streamed(self, target: ResolvedPath, fd: int, call: ReadCall) -> ReadResult:
        """A snippet or a page of a file over the whole-read limit, streamed."""
        start = call.start_line or 1  # a snippet's first line (unused by a page)
        if call.mode == "snippet":
            first = max(1, start - (call.context_lines or 0))
            needed = (call.end_line or start) + (call.context_lines or 0)
            begin = first
        else:
            first, begin = 1, 1 + call.skipped_lines
            needed = call.skipped_lines + (call.limit or 0)
        part = stream_range(fd, target.display, begin, needed)
        total = part.total_lines
        if call.mode == "snippet" and start > max(total, 1):
            raise SariError(ErrorCode.INVALID_ARGS, f"start_line {start} is past the end of "
                            f"{target.display!r} ({total} lines).",
                            f"Use a start_line between 1 and {max(total, 1)}.",
                            [_snippet_call(target.display, max(total - 20, 1), max(total, 1))])
        last = min(needed, total) if call.mode == "snippet" else total
        # The window of lines begin..needed, numbered from `begin`, then renumbered.
        shown = window(part.lines, 1, min(needed, total) - begin + 1,
                       call.model_copy(update={"offset": 0}))
        start_line, end_line = shown.start + begin - 1, shown.end + begin - 1
        more = end_line < last
        text = TextFile(b"", "", part.encoding, part.hash)
        result = Window(shown.text, start_line, end_line, shown.truncated or more,
                        shown.degraded, end_line - first + 2 if more else None)
        return self._result(target, text, result, total, {"streamed": True})

    def _result(self, target: ResolvedPath, text: TextFile, shown: Window, total_lines: int,
                extra: dict[str, object]) -> ReadResult:
        meta: dict[str, object] = {"language": language_of(target.rel), "encoding": text.encoding,
                                   **extra}
        if shown.next_offset is not None:
            meta["next_offset"] = shown.next_offset
        return ReadResult(
            path=target.display, text=shown.text, start_line=shown.start, end_line=shown.end,
            total_lines=total_lines, content_hash=text.hash, truncated=shown.truncated,
            preview_degraded=shown.degraded,
            location=Location(file=target.display, line=shown.start if shown.end >= shown.start
                              else None, end_line=shown.end if shown.end >= shown.start else None),
            extra=meta)

    # --- symbol ---------------------------------------------------------------------

    def _symbol(self, call: ReadCall) -> ReadResult:
        complete = self.ensure_symbols()
        hit, notes = self._resolve_symbol(call, complete)
        target = self.guard.resolved(hit.root, hit.path)
        text = self._load(target, whole_file=False)
        lines = split_lines(text.text)
        # Its decorators are part of it: @classmethod or @property changes what it is.
        first, last = decorated_start(lines, hit.line), min(hit.end_line, len(lines))
        if call.include_context:
            while first > 1 and hit.line - first < MAX_LEADING_LINES \
                    and _LEADING.match(lines[first - 2]):
                first -= 1
            first, last = max(1, first - CONTEXT_LINES), min(len(lines), last + CONTEXT_LINES)
        resolved = {"name": hit.name, "kind": hit.kind, "path": target.display,
                    "line": hit.line, "end_line": hit.end_line}
        extra: dict[str, object] = {"resolved_symbol": resolved}
        if notes:
            extra["notes"] = notes
        return self._result(target, text, window(lines, first, last, call), len(lines), extra)

    def _resolve_symbol(self, call: ReadCall, complete: bool) -> tuple[SymbolHit, list[str]]:
        """The definition a symbol read names, and notes on how it was chosen."""
        name, container = _split_symbol(call.target)
        hits = self.store.symbols("s.is_def = 1 AND s.folded = ? AND s.name COLLATE NOCASE = ?",
                                  (folded_name(name), name))
        exact = [hit for hit in hits if hit.name == name]
        hits = exact or hits
        if call.path:
            scope = self.guard.resolve(call.path, kind="any")
            hits = [hit for hit in hits if hit.root == scope.root_index and (
                not scope.rel or hit.path == scope.rel or hit.path.startswith(scope.rel + "/"))]
        if container:  # 'Class.method', or 'module.function' naming the file
            hits = [hit for hit in hits if self._inside(hit, container)
                    or hit.path.rsplit("/", 1)[-1].split(".", 1)[0] == container]
        if not hits:
            building = "" if complete else " The index is still being built; retry shortly."
            raise SariError(ErrorCode.NOT_FOUND,
                            f"no definition of {call.target!r} was found"
                            + (f" in {call.path!r}" if call.path else "") + "." + building,
                            "Search for the name (kind='symbol') to see similar definitions.",
                            [NextCall(tool="search", arguments={"query": name, "kind": "symbol"})])
        if len(hits) == 1:
            return hits[0], []
        paths = sorted({hit.path for hit in hits})
        if container is None and len(paths) == 1:
            # An unqualified name in one file names its module-level definition, as the
            # language's own scoping does; the nested ones are named in a note.
            top = [hit for hit in hits if self._top_level(hit)]
            if len(top) == 1:
                others = ", ".join(f"{h.line} ({h.kind})" for h in hits if h is not top[0])
                return top[0], [f"Also named {name!r} in this file, nested: line {others}; "
                                "qualify the name (e.g. 'Class.method') to read another."]
        if len(paths) == 1:
            implemented = self._implementation(hits, name)
            if implemented is not None:
                return implemented
        listed = "; ".join(f"{self.guard.display(h.root, h.path)}:{h.line} ({h.kind})"
                           for h in hits[:AMBIGUITY_LIST])
        more = f" and {len(hits) - AMBIGUITY_LIST} more" if len(hits) > AMBIGUITY_LIST else ""
        if len(paths) > 1:
            calls = [NextCall(tool="read", arguments={"mode": "symbol", "target": call.target,
                                                      "path": self.guard.display(h.root, h.path)})
                     for h in _first_per_path(hits)[:5]]
            hint = "Pass path to choose one definition."
        else:
            calls = [_snippet_call(self.guard.display(h.root, h.path), h.line, h.end_line)
                     for h in hits[:5]]
            hint = "Qualify the name (e.g. 'Class.method'), or read the lines with mode='snippet'."
        raise SariError(ErrorCode.SYMBOL_AMBIGUOUS,
                        f"{call.target!r} has {len(hits)} definitions: {listed}{more}.", hint,
                        calls, details={"candidates": [
                            {"path": self.guard.display(h.root, h.path), "line": h.line,
                             "end_line": h.end_line, "kind": h.kind} for h in hits[:50]]})

    def _implementation(self, hits: list[SymbolHit], name: str
                        ) -> tuple[SymbolHit, list[str]] | None:
        """The one definition of ``hits`` (all in one file) that is not an ``@overload``
        signature, when every other one is: to a type checker they are one function, and
        its implementation is what runs. None when that is not so."""
        target = self.guard.resolved(hits[0].root, hits[0].path)
        if not target.display.endswith((".py", ".pyi")):
            return None
        lines = split_lines(self._load(target, whole_file=False).text)
        signatures = [hit for hit in hits if is_overload(lines, hit.line)]
        bodies = [hit for hit in hits if hit not in signatures]
        if not signatures or len(bodies) != 1:
            return None
        listed = ", ".join(str(hit.line) for hit in signatures)
        return bodies[0], [f"{name!r} is overloaded: its @overload signatures are at line "
                           f"{listed} of this file; this is the implementation. Read the "
                           "signatures with mode='snippet'."]

    def _top_level(self, hit: SymbolHit) -> bool:
        """Whether no other definition of the same file encloses ``hit``."""
        rows = self.store.symbols("s.is_def = 1 AND s.file_id = ? AND s.line <= ? "
                                  "AND s.end_line >= ?", (hit.file_id, hit.line, hit.end_line))
        return all((row.line, row.end_line) == (hit.line, hit.end_line) for row in rows)

    def _inside(self, hit: SymbolHit, container: str) -> bool:
        """Whether a definition named ``container`` in the same file encloses ``hit``."""
        rows = self.store.symbols("s.is_def = 1 AND s.folded = ? AND s.name = ? AND s.file_id = ?",
                                  (folded_name(container), container, hit.file_id))
        return any(row.line <= hit.line and hit.end_line <= row.end_line and row.line != hit.line
                   for row in rows)

    # --- diff -----------------------------------------------------------------------

    def _diff(self, call: ReadCall) -> ReadResult:
        target = self.guard.resolve(call.target, kind="any")
        preview = diff_preview(target, call.against or "HEAD")
        lines = split_lines(preview.diff)
        shown = window(lines, 1, len(lines), call)
        summary = (f"{len(preview.files)} file(s) changed against {call.against or 'HEAD'}: "
                   f"+{preview.added} -{preview.removed}" if preview.files
                   else f"no changes against {call.against or 'HEAD'}")
        extra: dict[str, object] = {"against": call.against or "HEAD", "files": preview.files,
                                    "added": preview.added, "removed": preview.removed}
        if shown.next_offset is not None:
            extra["next_offset"] = shown.next_offset
        return ReadResult(path=target.display, text=summary, diff=shown.text,
                          start_line=shown.start, end_line=shown.end, total_lines=len(lines),
                          truncated=shown.truncated, preview_degraded=shown.degraded,
                          location=Location(file=target.display), extra=extra)


def _size(fd: int) -> int:
    return os.fstat(fd).st_size


def _split_symbol(target: str) -> tuple[str, str | None]:
    for separator in ("::", "."):
        if separator in target:
            container, _, name = target.rpartition(separator)
            return name, container.rsplit(separator, 1)[-1] or None
    return target, None


def _first_per_path(hits: list[SymbolHit]) -> list[SymbolHit]:
    seen: set[tuple[int, str]] = set()
    out = []
    for hit in hits:
        if (hit.root, hit.path) not in seen:
            seen.add((hit.root, hit.path))
            out.append(hit)
    return out


def _snippet_call(target: str, start: int, end: int) -> NextCall:
    return NextCall(tool="read", arguments={"mode": "snippet", "target": target,
                                            "start_line": start, "end_line": max(end, start)})
