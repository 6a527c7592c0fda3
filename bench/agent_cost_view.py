"""What a scripted agent of ``bench/agent_cost.py`` has been shown, and what it can know from it.

An agent knows a file line only when a tool's text showed it: a numbered line of a read
(``N<TAB>line``), a match of a search (``path:N:line`` from ripgrep, ``  N: line`` under the
path in Sari's answer), each checked against the file so a cut or rewritten line does not
count. It knows where a definition starts only from a shown line that defines that name
(``def name``, ``class name``), and its range only when a tool stated it (an outline entry,
a symbol read's header) or when it was shown the definition through the line after its end.
Nothing here reads a definition's range from the file's syntax tree on the agent's behalf.
"""

from __future__ import annotations

import re
from typing import Any

DEF_LINE = re.compile(r"^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
NUMBERED = re.compile(r"^(\d+)\t(.*)$")  # a read's line, as built-in tools and Sari print it
GREP = re.compile(r"^([^:\n]+):(\d+):(.*)$")  # ripgrep's path:line:text
# A match under its file in Sari's search answer ("  12: text", "  12 in Class.method: text"),
# and a line of the definition shown with it ("    12 | text").
# A match that is a definition states its range ("  12-40: def name(...)"), from its
# decorators when it has some ("  11-40: @property", its "def" line below).
MATCH = re.compile(r"^\s+(\d+)(?:-(\d+))?(?: in [^:]+)?: ?(.*)$")
SHOWN_ROW = re.compile(r"^\s+(\d+) \| ?(.*)$")
# The range a search answer states for a long definition it shows: "(function name: lines 3-90)".
STATED_RANGE = re.compile(r"^\s*\(\w+ ([A-Za-z_][\w.]*): lines (\d+)-(\d+)\)\s*$")
# A range a tool stated: an outline entry ("kind name 10-42", "kind name 7" for one line) or a
# symbol read's header ("path (name) lines 10-42").
OUTLINE_ENTRY = re.compile(r"^\s*\w+ ([A-Za-z_][\w.]*) (\d+)(?:-(\d+))?\s*$")
SYMBOL_HEADER = re.compile(r"^(\S+) \(([\w.]+)\) lines (\d+)-(\d+)")


def _same(shown: str, line: str) -> bool:
    """A shown line is the file's line: exactly, or with its whitespace collapsed (a search
    answer shows a match on one line, its indentation folded)."""
    return shown == line or " ".join(shown.split()) == " ".join(line.split())


class View:
    """Everything one agent has been shown in one session, per file of the corpus."""

    def __init__(self, corpus: Any) -> None:
        self.corpus = corpus
        self.shown: dict[str, set[int]] = {}
        self.hits: dict[str, list[int]] = {}  # the lines the latest search that hit a file showed
        # (path, name) -> every range a tool stated for a definition of that name, with the
        # name as the tool gave it (``Class.method`` when it qualified it): one file may
        # define the same name more than once (methods of two classes, overloads).
        self.told: dict[tuple[str, str], list[tuple[str, int, int]]] = {}

    def file_lines(self, path: str) -> list[str]:
        return self.corpus.text_of(path).split("\n")

    def is_file(self, path: str) -> bool:
        return self.corpus.has_file(path)

    def see(self, path: str, number: int, text: str) -> bool:
        lines = self.file_lines(path)
        if 1 <= number <= len(lines) and _same(text, lines[number - 1]):
            self.shown.setdefault(path, set()).add(number)
            return True
        return False

    def tell(self, path: str, stated: str, first: int, last: int) -> None:
        """A tool stated that ``stated`` (a name, maybe qualified) spans ``first``-``last``."""
        ranges = self.told.setdefault((path, stated.rsplit(".", 1)[-1]), [])
        if all((first, last) != (top, end) for _, top, end in ranges):
            ranges.append((stated, first, last))

    def stated(self, path: str, dotted: str, truth: tuple[int, int]) -> tuple[int, int] | None:
        """The range a tool stated for ``dotted``: the one stated under that qualified name,
        else the one about the definition meant (of several same-named definitions, the
        agent recognises the right one by what it was shown around it), else none."""
        ranges = self.told.get((path, dotted.rsplit(".", 1)[-1]), [])
        exact = [(top, end) for name, top, end in ranges if name == dotted]
        about = [(top, end) for _, top, end in ranges if top <= truth[1] and end >= truth[0]]
        found = exact or about
        return found[0] if found else None

    def count(self) -> int:
        return sum(len(lines) for lines in self.shown.values())

    # --- tool texts ---------------------------------------------------------------------

    def see_read(self, path: str, text: str) -> None:
        """A read's text: its numbered lines, and a range its header states."""
        for line in text.split("\n"):
            numbered = NUMBERED.match(line)
            if numbered:
                self.see(path, int(numbered.group(1)), numbered.group(2))
        header = SYMBOL_HEADER.match(text)
        if header:
            self.tell(path, header.group(2), int(header.group(3)), int(header.group(4)))

    def see_outline(self, path: str, text: str) -> None:
        """An outline's entries: each names a definition and states its range."""
        for line in text.split("\n")[1:]:
            entry = OUTLINE_ENTRY.match(line)
            if entry:
                first = int(entry.group(2))
                self.tell(path, entry.group(1), first, int(entry.group(3) or first))

    def see_grep(self, text: str) -> None:
        """ripgrep's ``path:line:text`` lines."""
        hits: dict[str, list[int]] = {}
        for line in text.split("\n"):
            match = GREP.match(line)
            if match and self.is_file(match.group(1)):
                path, number = match.group(1), int(match.group(2))
                if self.see(path, number, match.group(3)):
                    hits.setdefault(path, []).append(number)
        self.hits.update(hits)

    def see_search(self, text: str) -> None:
        """Sari's search answer: a file's path on its own line, its matches under it, and the
        definitions it shows with them: their lines count as shown, the ranges it states
        (a match's that is a definition, a long definition's, and those of the outline rows
        under its signature) as told."""
        hits: dict[str, list[int]] = {}
        path: str | None = None
        decorated: tuple[int, int] | None = None  # a stated range opened by a decorator line
        for line in text.split("\n")[1:]:
            candidate = line.strip().split(" ", 1)[0].rstrip(":")
            if line and not line[0].isspace() and self.is_file(candidate):
                path, decorated = candidate, None
                continue
            if path is None:
                continue
            row = SHOWN_ROW.match(line)
            if row:
                number = int(row.group(1))
                self.see(path, number, row.group(2))
                defined = DEF_LINE.match(row.group(2))
                if decorated and defined and decorated[0] <= number <= decorated[1]:
                    self.tell(path, defined.group(1), *decorated)
                    decorated = None
                continue
            stated = STATED_RANGE.match(line) or OUTLINE_ENTRY.match(line)
            if stated and (STATED_RANGE.match(line) or line.startswith("      ")):
                first = int(stated.group(2))
                self.tell(path, stated.group(1), first, int(stated.group(3) or first))
                continue
            match = MATCH.match(line)
            if match:
                first = int(match.group(1))
                hits.setdefault(path, []).append(first)
                self.see(path, first, match.group(3))
                defined = DEF_LINE.match(match.group(3))
                if match.group(2) and defined:
                    self.tell(path, defined.group(1), first, int(match.group(2)))
                # A definition shown from its decorators: the range is the one of the
                # definition whose line follows.
                decorated = (first, int(match.group(2))) \
                    if match.group(2) and not defined and match.group(3).startswith("@") else None
        self.hits.update(hits)

    # --- what the agent knows about a definition ------------------------------------------

    def start_of(self, path: str, dotted: str, truth: tuple[int, int]) -> int | None:
        """Where the agent knows the definition starts: a range a tool stated, else a shown
        line defining that name inside it (of several same-named definitions, the agent
        recognises the right one by what it was shown around it)."""
        name = dotted.rsplit(".", 1)[-1]
        told = self.stated(path, dotted, truth)
        if told is not None:
            return told[0]
        lines = self.file_lines(path)
        top, end = truth
        for number in sorted(self.shown.get(path, ())):
            if top <= number <= end:
                found = DEF_LINE.match(lines[number - 1])
                if found and found.group(1) == name:
                    return number
        return None

    def end_of(self, path: str, dotted: str, truth: tuple[int, int]) -> int | None:
        """Where the agent knows the definition ends: a stated range, or the definition shown
        through its last line and the next line that is not blank (or the file's end)."""
        told = self.stated(path, dotted, truth)
        if told is not None:
            return told[1]
        top, end = truth
        shown = self.shown.get(path, set())
        lines = self.file_lines(path)
        after = next((n for n in range(end + 1, len(lines) + 1) if lines[n - 1].strip()), None)
        if all(n in shown for n in range(top, end + 1)) and (after is None or after in shown):
            return end
        return None

    def seen_whole(self, path: str, line: int) -> bool:
        """Whether a definition holding ``line`` was shown whole: a tool stated its range
        and showed every line of it."""
        shown = self.shown.get(path, set())
        return any(top <= line <= end and all(n in shown for n in range(top, end + 1))
                   for (where, _), ranges in self.told.items() if where == path
                   for _, top, end in ranges)

    def first_missing(self, truth: tuple[int, int], path: str) -> int | None:
        """The first line of the definition the agent has not been shown (it sees the gap:
        the definition goes on past the last line it was shown, or a number jumps)."""
        shown = self.shown.get(path, set())
        return next((n for n in range(truth[0], truth[1] + 1) if n not in shown), None)
