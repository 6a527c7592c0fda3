"""The client's own tools, as ``bench/agent_cost.py`` emulates them, and its two native agents.

Grep is ripgrep (``rg -n`` with its defaults: ``.gitignore``, hidden and binary files skipped;
``--sort path`` so a run is repeatable), the query escaped as a regex the way a model writes a
literal, cut to its first 250 lines (the built-in ``head_limit``) with the CLI's note saying
so. Read prints numbered lines (the line number, a tab, the line) from ``offset`` for
``limit`` lines; with no limit, one page: the lines while the CLI's token estimate of them
stays within 21,250 (85% of its 25,000-token cap), then its note naming the next page's
offset. A Read repeating an earlier Read of the same file and range, the file unchanged, is
answered with the CLI's "file unchanged" text instead of the lines. An end-to-end test holds
the numbering, the page, the note and that text to the pinned Claude Code CLI.

* :class:`NativeAgent`, the whole-file agent: reads what its script says, whole files included.
* :class:`CarefulAgent`: reads a whole file only when it is short (at most ``SHORT_FILE``
  lines) or its script gives the range; otherwise the range around the hits its searches
  showed in that file (at most ``AROUND_HITS`` of them; none around a hit in a definition
  a tool already showed it whole), or the file's head when they showed none.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_cost_agents import CONTEXT_BEFORE, WINDOW, ScriptedAgent, split_lines
from agent_cost_corpora import ReadFile

from sari_core.costmodel import CHARS_PER_TOKEN

GREP_HEAD = 250
READ_TOKEN_CAP = 25_000
READ_PAGE_TOKENS = READ_TOKEN_CAP * 85 // 100
# What the pinned CLI (2.1.330) has for a Read of a file unchanged since the same Read.
FILE_UNCHANGED = ("File unchanged since last read. The content from the earlier Read tool_result "
                  "in this conversation is still current \u2014 refer to that instead of "
                  "re-reading.")
SHORT_FILE = 200  # lines: a careful agent reads a file this short whole
AROUND_HITS = 3  # a careful agent reads around at most this many hits of a file
HEAD = 100  # lines of a long file a careful agent reads when no search hit it


def rg_executable() -> str:
    """The ``rg`` of the ``ripgrep`` wheel installed beside this Python, else on ``PATH``."""
    beside = Path(sys.executable).with_name("rg")
    found = str(beside) if beside.exists() else shutil.which("rg")
    if found is None:
        raise RuntimeError("ripgrep (rg) is needed by the native agents: pip install ripgrep")
    return found


def literal_pattern(query: str) -> str:
    """The query as the regex a model writes for it (``def run(`` -> ``def run\\(``)."""
    return re.sub(r"([\\.^$|?*+()\[\]{}])", r"\\\1", query)


class NativeAgent(ScriptedAgent):
    """The whole-file agent on the client's Grep and Read."""

    arm = "whole-file"

    def __init__(self, corpus: Any, session: Any) -> None:
        super().__init__(corpus, session)
        self.reads: dict[str, set[tuple[int, int | None]]] = {}
        self.next_page: dict[str, tuple[int, int]] = {}  # path -> (offset, limit) a note named

    # --- the tools ------------------------------------------------------------------------

    def grep(self, pattern: str, where: str = ".", cap: int = GREP_HEAD) -> None:
        """ripgrep's ``path:line:text`` lines, the first ``cap`` (the CLI's head, or the
        ``head_limit`` of the call)."""
        process = subprocess.Popen(
            [rg_executable(), "-n", "--with-filename", "--sort", "path", "-e", pattern, "--",
             where],
            cwd=self.corpus.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, errors="replace")
        assert process.stdout is not None
        lines: list[str] = []
        for line in process.stdout:
            lines.append(line.removeprefix("./"))
            if len(lines) > cap:  # one more than the head: the output was cut
                break
        process.kill()
        process.wait()
        text = native_grep_text(lines[:cap], len(lines) > cap and cap == GREP_HEAD)
        self.record(text)
        self.view.see_grep(text)

    def read(self, path: str, offset: int, limit: int | None) -> None:
        """Read ``limit`` lines after the first ``offset`` (the CLI's offset is the first line
        shown, so this is its ``offset + 1``)."""
        if (offset, limit) in self.reads.get(path, ()):
            self.tally.unchanged += 1
            self.record(FILE_UNCHANGED)
            return
        self.reads.setdefault(path, set()).add((offset, limit))
        lines = split_lines(self.corpus.text_of(path))
        shown = lines[offset:offset + limit] if limit else read_page(lines[offset:])
        text = native_read_text(shown, offset + 1)
        if not limit and offset + len(shown) < len(lines):
            text += native_page_note(path, offset + 1, len(shown), lines)
            self.next_page[path] = (offset + len(shown), len(shown))
        self.record(text)
        self.view.see_read(path, text)

    # --- what the script's steps become ---------------------------------------------------

    def search(self, query: str, kind: str) -> None:
        self.grep(literal_pattern(query))

    def locate(self, path: str, dotted: str) -> None:
        self.grep(rf"(def|class) {dotted.rsplit('.', 1)[-1]}\b", path)

    def read_range(self, path: str, first: int, last: int) -> None:
        self.read(path, max(0, first - 1), last - max(1, first) + 1)

    def read_file(self, step: ReadFile, path: str) -> None:
        self.read(path, step.offset or 0, step.limit)

    def continue_read(self, path: str, gap: int, last: int) -> None:
        """Go on where the text says: the page the CLI's note named, when it holds the gap."""
        page = self.next_page.get(path)
        if page is not None and page[0] < gap <= page[0] + page[1]:
            del self.next_page[path]
            self.read(path, *page)
            if page[0] + page[1] < len(split_lines(self.corpus.text_of(path))):
                self.next_page[path] = (page[0] + page[1], page[1])
            return
        self.read_range(path, gap, last)


class CarefulAgent(NativeAgent):
    """The careful agent: ripgrep, then the range around what it saw."""

    arm = "careful"

    def read_file(self, step: ReadFile, path: str) -> None:
        total = len(split_lines(self.corpus.text_of(path)))
        if step.limit is not None or total - (step.offset or 0) <= SHORT_FILE:
            super().read_file(step, path)
            return
        windows: list[list[int]] = []
        hits = sorted(self.view.hits.get(path, ()))[:AROUND_HITS]
        # A hit in a definition it was already shown whole needs no read around it.
        unseen = [hit for hit in hits if not self.view.seen_whole(path, hit)]
        if hits and not unseen:
            self.tally.skipped += 1
            return
        for hit in unseen:
            first, last = max(1, hit - CONTEXT_BEFORE), min(total, hit + WINDOW)
            if windows and first <= windows[-1][1] + 1:
                windows[-1][1] = max(windows[-1][1], last)
            else:
                windows.append([first, last])
        for first, last in windows or [[1, HEAD]]:
            self.read_range(path, first, last)

    def continue_read(self, path: str, gap: int, last: int) -> None:
        self.read_range(path, gap, last)


def native_read_text(lines: list[str], first: int) -> str:
    """What the built-in Read shows for ``lines`` starting at line ``first``: each line as
    its number, a tab and the line, as the pinned Claude Code CLI prints them."""
    return "".join(f"{number}\t{line}" for number, line in enumerate(lines, first))


def native_grep_text(lines: list[str], cut: bool) -> str:
    """What the built-in Grep shows for its ``path:line:text`` lines, with the CLI's note
    when the head cut them."""
    text = "".join(lines)
    return text + f"\n[Showing results with pagination = limit: {GREP_HEAD}]" if cut else text


def _estimated_chars(line: str) -> int:
    """What one line adds to the CLI's token estimate, in characters: its text and one more
    (the estimate, fitted to the pages the pinned CLI printed for four files, is
    (characters + lines) / 4)."""
    return len(line) + 1


def read_page(lines: list[str]) -> list[str]:
    """The lines a Read with no limit shows: as many as fit its page."""
    used = 0
    for count, line in enumerate(lines):
        used += _estimated_chars(line)
        if used > READ_PAGE_TOKENS * CHARS_PER_TOKEN:
            return lines[:count]
    return lines


def cli_token_estimate(lines: list[str]) -> int:
    """The CLI's estimate of a text's tokens (see ``READ_PAGE_TOKENS``)."""
    return sum(map(_estimated_chars, lines)) // CHARS_PER_TOKEN


def native_page_note(path: str, first: int, count: int, lines: list[str]) -> str:
    """The note the CLI appends to a cut page, as it words it."""
    last = first + count - 1
    total = len(lines) + (1 if lines and lines[-1].endswith("\n") else 0)  # as it counts
    return (f"\n\n<system-reminder>\n[Truncated: PARTIAL view \u2014 {path}: showing lines "
            f"{first}-{last} of {total} total ({cli_token_estimate(lines)} tokens, cap "
            f"{READ_TOKEN_CAP}). Call Read with offset={last + 1} limit={count} for the next "
            "page, or Grep to find a specific section. To read it anyway, up to what still "
            "fits in your context, call Read again with allow_large: true \u2014 only if you "
            "genuinely need all of it or the user asked for the whole file. Do NOT answer "
            "from this page alone if the answer may be further in the file.]\n"
            "</system-reminder>")
