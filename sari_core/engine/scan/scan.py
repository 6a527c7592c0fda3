"""Answering a search before the first index exists: a scan of the workspace.

A never-indexed tree takes a while to index; until then a search must still give the
right answer, and as fast as a plain grep. The scan runs ripgrep (``rg``, from the
``ripgrep`` wheel, else from the PATH) over the roots with the workspace's own file
set: hidden files included, ``.gitignore`` files read as git does with or without a
repository, Sari's default exclusions and the workspace's extra exclusions passed as
globs; every file it reports is then checked against :class:`IgnoreRules` itself, so
the scan never shows a file the index would not hold. Without ``rg`` the scan is a
walk in Python (slower, same answer).

The hits are ranked by the index's rules as far as a scan allows: a definition is
recognised by its line (``def NAME``, ``class NAME``, ``function NAME``...) rather
than by the parsed symbols.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from sari_core.engine.files import fdwalk
from sari_core.engine.files.ignore import Chain, IgnoreRules
from sari_core.engine.files.textfile import BINARY_SNIFF_BYTES, MAX_INDEX_BYTES, decode, is_binary
from sari_core.engine.index.fast_definitions import DEFINITION_WORDS
from sari_core.engine.index.names import folded, words
from sari_core.engine.scan import rg_command
from sari_core.engine.scan.rg_command import LINES_PER_FILE, PREVIEW_COLUMNS, ripgrep, scannable
from sari_core.engine.search import work_budget
from sari_core.engine.search.regex import compile_query
from sari_core.engine.search.text_match import FileHit, contains, glob_spec

RG_ERROR = 2  # rg's exit status for an error (a pattern it cannot parse, among others)
RG_PATHS_PER_CALL = 4000  # paths given to one rg
# ... and their characters together, well under the command line's limit (32,767 characters
# on Windows; on Linux the arguments and the environment share ARG_MAX, 2 MB by default).
RG_ARGUMENT_CHARS = 24_000 if os.name == "nt" else 1_000_000
# A line that introduces a definition in the languages Sari parses.
_DEFINITION = re.compile(
    r"^\s*(?:(?:export|pub(?:\([^)]*\))?|async|default|abstract|public|private|static)\s+)*"
    r"(" + "|".join(DEFINITION_WORDS) + r")\s+\*?([A-Za-z_$][\w$]*)")


@dataclass
class ScannedFile:
    root: int
    rel: str
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)


class TextFiles(NamedTuple):
    """The index's text files: ``files`` sorted by (root, path), ``paths`` their absolute
    paths (the root as given, the OS's separators: as rg prints them), ``rank`` the place
    of each path in both, ``number`` the place of each file id."""

    files: list[FileHit]
    paths: list[str]
    rank: dict[str, int]
    number: dict[int, int]  # file id -> place
    sizes: list[int]  # bytes, as indexed


def definition_on(line: str) -> tuple[str, str] | None:
    """(name, kind) of the definition a line starts, when it reads like one."""
    found = _DEFINITION.match(line)
    if found is None:
        return None
    return found.group(2), DEFINITION_WORDS[found.group(1)]


def symbol_pattern(name: str, mode: str) -> str:
    """A regex (rg syntax, used with ``-i``) for definition lines of names matching
    ``name`` (any case or naming style: ``get_user``, ``getUser``)."""
    parts = [re.escape(part) for part in words(name)] or [re.escape(name)]
    spelled = "[_-]?".join(parts)
    if mode == "fuzzy":
        spelled = r"\w*" + spelled
    tail = r"\b" if mode == "exact" else r"\w*\b"
    keywords = "|".join(DEFINITION_WORDS)
    return rf"\b(?:{keywords})\s+\*?{spelled}{tail}"


class WorkspaceScan:
    """Scans the roots for lines matching a literal or a regex (or lists their files)."""

    def __init__(self, roots: Sequence[Path], rules: Sequence[IgnoreRules],
                 extra_excludes: Sequence[str] = ()) -> None:
        self.roots = [str(root) for root in roots]
        self.rules = list(rules)
        self.extra_excludes = list(extra_excludes)
        self._ignored_dirs: dict[tuple[int, str], bool] = {}
        self._chains: dict[tuple[int, str], Chain] = {}  # .gitignore chain per folder
        # A root inside another: rg would list its files once per root, under one path;
        # such a workspace is scanned in Python, root by root.
        self._nested = any(inner != outer and inner.startswith(outer.rstrip(os.sep) + os.sep)
                           for inner in self.roots for outer in self.roots)

    # --- the workspace's file set ---------------------------------------------------

    def belongs(self, root: int, rel: str) -> bool:
        """Whether the index would hold this file (the same ignore decisions)."""
        rules = self.rules[root]
        folder = rel.rpartition("/")[0]
        if not folder:
            return not rules.is_ignored(rel)
        if self._dir_ignored(root, folder):
            return False
        return not fdwalk.is_temp_name(rel.rpartition("/")[2]) and \
            not rules.decide(self._chain(root, folder), rel, False)

    def _chain(self, root: int, folder: str) -> Chain:
        key = (root, folder)
        chain = self._chains.get(key)
        if chain is None:
            chain = self._chains[key] = self.rules[root].chain_for(folder)
        return chain

    def _fresh(self) -> None:
        """Forget the cached decisions: a .gitignore may have changed since the last scan."""
        self._ignored_dirs.clear()
        self._chains.clear()

    def _dir_ignored(self, root: int, folder: str) -> bool:
        key = (root, folder)
        if key not in self._ignored_dirs:  # as IgnoreRules.is_ignored decides, one level
            parent, _, name = folder.rpartition("/")  # at a time, each level cached
            rules = self.rules[root]
            self._ignored_dirs[key] = (bool(parent) and self._dir_ignored(root, parent)) \
                or rules.excluded_dir(name, os.path.join(self.roots[root], folder)) \
                or rules.decide(self._chain(root, parent), folder, True)
        return self._ignored_dirs[key]

    def _ripgrep(self) -> str | None:
        """rg, when it can list this workspace's files exactly."""
        return None if self._nested else ripgrep()

    def _split(self, path: str) -> tuple[int, str] | None:
        for index, root in enumerate(self.roots):
            if path.startswith(root) and path[len(root):len(root) + 1] in ("/", os.sep):
                return index, path[len(root) + 1:].replace(os.sep, "/")
        return None

    # --- ripgrep --------------------------------------------------------------------

    def _rg_command(self, binary: str) -> list[str]:
        return rg_command.base_command(binary, self.extra_excludes)

    def files(self) -> Iterator[tuple[int, str]]:
        """Every file of the workspace (root index, path relative to it)."""
        self._fresh()
        binary = self._ripgrep()
        if binary is None:
            for root, rules in enumerate(self.rules):
                for entry in rules.walk():
                    yield root, entry.rel
            return
        output, _ = rg_command.run([*self._rg_command(binary), "--files", "--null", "--",
                                    *self.roots], timeout=None)
        for raw in output.split(b"\0"):
            if raw:
                key = self._split(os.fsdecode(raw))
                if key is not None and self.belongs(*key):
                    yield key

    def lines(self, pattern: str, *, regex: bool, case_sensitive: bool,
              glob: str | None = None) -> list[ScannedFile]:
        """The files with a line matching ``pattern`` and their first matching lines."""
        self._fresh()
        binary = self._ripgrep()
        if binary is None or not scannable(pattern):
            found = self._python_lines(pattern, regex, case_sensitive)
        else:
            found = self._rg_lines(binary, pattern, regex, case_sensitive)
            if found is None:
                found = self._python_lines(pattern, regex, case_sensitive)
        spec = glob_spec(glob) if glob else None
        return [item for item in found if (spec is None or spec.match_file(item.rel))
                and self.belongs(item.root, item.rel)]

    def indexed_matches(self, pattern: str, indexed: TextFiles, *, case_sensitive: bool,
                        glob: str | None = None, among: Sequence[int] | None = None
                        ) -> list[FileHit] | None:
        """The indexed text files with a line matching regex ``pattern`` (those of ``among``,
        places in ``indexed``, when given), sorted by (root, path); None when rg cannot
        answer it exactly (no rg, a non-ASCII pattern, a NUL, a pattern rg's syntax
        refuses).

        Over ``among``, rg is given their paths, several thousand at a time; otherwise it
        walks the tree, which does not follow links (given a path, rg opens it even when it
        is a link: such a file, or one in a linked folder, is left out after the search, so
        no text outside the workspace decides an answer). Either way the index decides which
        files count: it holds the files the workspace's rules let in, brought in step before
        a search (a folder whose ``.gitignore`` changed is checked again). Past the search's
        deadline the answer is the files found by then (the deadline noted on the budget).
        """
        binary = self._ripgrep()
        if binary is None or not scannable(pattern):
            return None
        flags = ["--files-with-matches", "--null",
                 "--case-sensitive" if case_sensitive else "--ignore-case", "--regexp", pattern]
        if among is None:  # the walk: links are not followed, nothing to check after it
            commands = [[*self._rg_command(binary), *flags, "--", *self.roots]]
        else:
            commands = [[binary, "--no-config", "--no-messages", "--color", "never", *flags,
                         "--", *batch]
                        for batch in _batches([indexed.paths[number] for number in among])]
        found: list[int] = []
        for command in commands:
            stdout, status = rg_command.run(command, timeout=work_budget.remaining())
            if status is None:
                work_budget.stop("its deadline")
                stdout = stdout.rpartition(b"\0")[0]
            elif status == RG_ERROR and not stdout:
                return None
            printed = os.fsdecode(stdout).split("\0")
            if os.sep != "/":
                printed = [path.replace("/", os.sep) for path in printed]
            found.extend(number for number in map(indexed.rank.get, printed)
                         if number is not None)
            if status is None:
                break
        if among is not None:
            found = _unlinked(found, indexed, self.roots)
        elif glob:
            spec = glob_spec(glob)
            found = [number for number in found if spec.match_file(indexed.files[number].path)]
        return [indexed.files[number] for number in sorted(found)]

    def _run_rg(self, command: list[str], pattern: str, regex: bool, case_sensitive: bool,
                record_end: bytes) -> bytes | None:
        """What ``command`` (rg) prints for ``pattern`` within the search's deadline: past
        it, the whole records printed by then (the deadline noted on the budget); None when
        rg's syntax refuses a pattern RE2 takes (e.g. ``\\"``)."""
        return self._finished(rg_command.run(
            rg_command.with_pattern(command, pattern, regex=regex, case_sensitive=case_sensitive,
                                    roots=self.roots), timeout=work_budget.remaining()),
            record_end)

    @staticmethod
    def _finished(ran: tuple[bytes, int | None], record_end: bytes) -> bytes | None:
        """rg's output as :meth:`_run_rg` says."""
        stdout, status = ran
        if status is None:
            work_budget.stop("its deadline")
            return stdout.rpartition(record_end)[0]
        if status == RG_ERROR and not stdout:
            return None
        return stdout

    def _rg_lines(self, binary: str, pattern: str, regex: bool, case_sensitive: bool
                  ) -> list[ScannedFile] | None:
        """rg's first matching lines per file, parsed as rg prints them; within the search's
        deadline (past it, the whole records printed by then, the deadline noted on the
        budget); None when rg's syntax refuses a pattern RE2 takes (e.g. ``\\"``)."""
        streamed = rg_command.Streamed(rg_command.with_pattern(
            rg_command.lines_command(binary, self.extra_excludes), pattern, regex=regex,
            case_sensitive=case_sensitive, roots=self.roots), work_budget.remaining())
        by_path: dict[bytes, ScannedFile | None] = {}
        printed = False
        for block in streamed:
            printed = printed or bool(block)
            for record in block.split(b"\n"):
                path, _, rest = record.partition(b"\0")
                if not rest:
                    continue
                item = by_path.get(path, False)
                if item is False:
                    key = self._split(os.fsdecode(path))
                    item = by_path[path] = ScannedFile(*key) if key is not None else None
                if not isinstance(item, ScannedFile):  # None: a path the scan does not serve
                    continue
                number, _, text = rest.partition(b":")
                # (an ASCII line decodes alike either way; a broad query brings thousands)
                item.lines.append((int(number),
                                   text.decode() if text.isascii() else decode(text).text))
        if streamed.status is None:
            work_budget.stop("its deadline")
        elif streamed.status == RG_ERROR and not printed:
            return None
        return [item for item in by_path.values() if item is not None]

    # --- the walk in Python (no rg here) --------------------------------------------

    def _python_lines(self, pattern: str, regex: bool, case_sensitive: bool
                      ) -> list[ScannedFile]:
        rx = compile_query(pattern, case_sensitive=case_sensitive) if regex else None
        out: list[ScannedFile] = []
        for root, rules in enumerate(self.rules):
            for entry in rules.walk():
                if entry.size > MAX_INDEX_BYTES:
                    continue
                if not work_budget.spend(entry.size):
                    return out
                try:
                    with open(entry.abs, "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                if is_binary(data[:BINARY_SNIFF_BYTES]):
                    continue
                item = ScannedFile(root, entry.rel)
                for number, line in enumerate(decode(data).text.split("\n"), 1):
                    hit = rx.search(line) is not None if rx is not None \
                        else contains(line, pattern, case_sensitive)
                    if hit:
                        item.lines.append((number, line[:PREVIEW_COLUMNS]))
                        if len(item.lines) >= LINES_PER_FILE:
                            break
                if item.lines:
                    out.append(item)
        return out


def _unlinked(found: Sequence[int], indexed: TextFiles, roots: Sequence[str]) -> list[int]:
    """The places of ``found`` whose file is a plain file (no link) in no linked folder below
    its root: one ``lstat`` per file, one per folder a call."""
    linked: dict[str, bool] = {}
    kept = []
    for number in found:
        path = indexed.paths[number]
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
        except OSError:
            continue
        root = roots[indexed.files[number].root].rstrip(os.sep)
        folder = os.path.dirname(path)
        while len(folder) > len(root):
            known = linked.get(folder)
            if known is None:
                known = linked[folder] = os.path.islink(folder)
            if known:
                break
            folder = os.path.dirname(folder)
        else:
            kept.append(number)
    return kept


def _batches(paths: Sequence[str]) -> Iterator[Sequence[str]]:
    """``paths`` in runs one rg command line holds: ``RG_PATHS_PER_CALL`` at most, and
    ``RG_ARGUMENT_CHARS`` of them together."""
    start = 0
    while start < len(paths):
        end, chars = start, 0
        while end < len(paths) and end - start < RG_PATHS_PER_CALL and \
                (end == start or chars + len(paths[end]) + 1 <= RG_ARGUMENT_CHARS):
            chars += len(paths[end]) + 1
            end += 1
        yield paths[start:end]
        start = end


def same_name(query: str, name: str) -> bool:
    """Whether ``name`` is spelled like ``query`` apart from case and word separators."""
    return folded(query) == folded(name)
