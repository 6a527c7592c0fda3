"""Which shell commands read or search files, parsed with a real shell lexer.

A client's shell tool (Claude Code's ``Bash``, Codex's shell) is how agents often read and
search: ``cat``, ``head``, ``tail``, ``sed -n``, ``grep``, ``rg``, ``ugrep``, ``find``,
``bfs``, ``ls``, ``wc``. :func:`shell_request` turns such a command into what it does (a
:class:`FileRead`, a :class:`TextSearch` or a :class:`Listing`), or None.

Only a single simple command is understood: the words are split by :mod:`shlex` in POSIX
mode with the shell's punctuation kept apart, and anything beyond plain words and the
options listed here (a pipe, ``;``, ``&&``, a redirection, ``$(...)``, backticks, a
variable, a glob the shell would expand, an option not known) gives None, so the
command runs untouched. One pipe is understood, ``… | head -n N`` after a search, as a
cap on what is shown.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# Characters whose meaning the shell decides at run time: such a command passes untouched.
_EXPANDED_BARE = frozenset("$`*?[]{}~\\")
_EXPANDED_DOUBLE_QUOTED = frozenset("$`\\")
_OPERATORS = frozenset({"|", "||", "&", "&&", ";", ";;", "<", ">", ">>", "<<", ">&", "<&",
                        "(", ")", "|&", "<<<", "&>"})
_SED_RANGE = re.compile(r"(\d+)(?:,(\d+|\$))?p")
_COUNT = re.compile(r"\d+")


@dataclass(frozen=True)
class FileRead:
    """Lines of one file: from ``first`` (1-based), ``count`` of them (None: to the end);
    ``last`` counts from the end instead (``tail -n N``)."""

    path: str
    first: int = 1
    count: int | None = None
    last: int | None = None


@dataclass(frozen=True)
class TextSearch:
    """A regular-expression search of ``paths`` (none: the working folder)."""

    pattern: str
    paths: tuple[str, ...] = ()
    ignore_case: bool = False
    fixed: bool = False
    files_only: bool = False
    head: int | None = None


@dataclass(frozen=True)
class Listing:
    """Names or counts, no file content (``ls``, ``find``, ``bfs``, ``wc``): ``paths`` as given."""

    program: str
    paths: tuple[str, ...] = ()


ShellRequest = FileRead | TextSearch | Listing


def expands(command: str) -> bool:
    """Whether the shell would expand anything in ``command``: a variable, a substitution,
    a glob, a tilde or an escape outside single quotes (inside double quotes: ``$``,
    backticks and escapes)."""
    quote = ""
    for char in command:
        if quote == "'":
            quote = "" if char == "'" else quote
        elif quote == '"':
            if char == '"':
                quote = ""
            elif char in _EXPANDED_DOUBLE_QUOTED:
                return True
        elif char in "'\"":
            quote = char
        elif char in _EXPANDED_BARE:
            return True
    return False


def words(command: str) -> list[str] | None:
    """The words of a command, or None when it holds anything but plain words."""
    if "\n" in command.strip() or expands(command):
        return None
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote
        return None
    return tokens or None


def _split_pipeline(tokens: list[str]) -> tuple[list[str], int | None] | None:
    """The command and a ``| head -n N`` cap after it; None for any other operator."""
    if not any(token in _OPERATORS for token in tokens):
        return tokens, None
    if tokens.count("|") != 1 or any(t in _OPERATORS for t in tokens if t != "|"):
        return None
    at = tokens.index("|")
    head = _head_count(tokens[at + 1:])
    return (tokens[:at], head) if head is not None else None


def _head_count(tokens: list[str]) -> int | None:
    if not tokens or tokens[0] != "head":
        return None
    rest = tokens[1:]
    if rest == []:
        return 10
    if len(rest) == 1 and rest[0].startswith("-") and _COUNT.fullmatch(rest[0][1:]):
        return int(rest[0][1:])
    if len(rest) == 2 and rest[0] == "-n" and _COUNT.fullmatch(rest[1]):
        return int(rest[1])
    return None


def shell_request(command: str) -> ShellRequest | None:
    """What ``command`` reads or searches, or None when it is not understood whole."""
    tokens = words(command)
    if tokens is None:
        return None
    split = _split_pipeline(tokens)
    if split is None:
        return None
    argv, head = split
    if not argv:
        return None
    program = argv[0].rsplit("/", 1)[-1]
    args = argv[1:]
    if head is not None and program not in ("grep", "rg", "ugrep"):
        return None
    parse = _PROGRAMS.get(program)
    if parse is None:
        return None
    request = parse(args)
    if isinstance(request, TextSearch) and head is not None:
        request = TextSearch(request.pattern, request.paths, request.ignore_case, request.fixed,
                             request.files_only, head)
    return request


def _cat(args: list[str]) -> ShellRequest | None:
    files = [arg for arg in args if arg != "-n"]
    if len(files) != 1 or files[0].startswith("-"):
        return None
    return FileRead(files[0])


def _lines_option(args: list[str]) -> tuple[int, list[str]] | None:
    """``-n N``, ``-nN``, ``-N`` or ``--lines=N`` and the rest; 10 when none is given."""
    count, rest, index = 10, [], 0
    while index < len(args):
        arg = args[index]
        if arg == "-n" and index + 1 < len(args) and _COUNT.fullmatch(args[index + 1]):
            count, index = int(args[index + 1]), index + 2
            continue
        for prefix in ("-n", "--lines=", "-"):
            value = arg[len(prefix):]
            if arg.startswith(prefix) and _COUNT.fullmatch(value):
                count = int(value)
                break
        else:
            if arg.startswith("-"):
                return None
            rest.append(arg)
        index += 1
    return count, rest


def _head(args: list[str]) -> ShellRequest | None:
    parsed = _lines_option(args)
    if parsed is None or len(parsed[1]) != 1:
        return None
    return FileRead(parsed[1][0], 1, parsed[0])


def _tail(args: list[str]) -> ShellRequest | None:
    parsed = _lines_option(args)
    if parsed is None or len(parsed[1]) != 1:
        return None
    return FileRead(parsed[1][0], last=parsed[0])


def _sed(args: list[str]) -> ShellRequest | None:
    if len(args) != 3 or args[0] != "-n":
        return None
    match = _SED_RANGE.fullmatch(args[1])
    if match is None or args[2].startswith("-"):
        return None
    first = int(match.group(1))
    end = match.group(2)
    if first < 1:
        return None
    if end is None:
        return FileRead(args[2], first, 1)
    if end == "$":
        return FileRead(args[2], first)
    if int(end) < first:
        return None
    return FileRead(args[2], first, int(end) - first + 1)


# Flags of grep, rg and ugrep that change only how matches are shown, not what matches.
_SHOWING_FLAGS = frozenset({"-n", "--line-number", "-H", "--with-filename", "-r", "-R",
                            "--recursive", "-s", "--no-messages", "--color=never",
                            "--no-heading", "--heading", "-S", "--smart-case", "-E",
                            "--extended-regexp", "-P", "--perl-regexp", "--hidden", "-I",
                            "-U", "--no-ignore"})
_CONTEXT_FLAGS = frozenset({"-A", "-B", "-C", "--context", "--after-context",
                            "--before-context", "-m", "--max-count"})


def _grep(args: list[str]) -> ShellRequest | None:
    pattern: str | None = None
    paths: list[str] = []
    ignore_case = fixed = files_only = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            rest = args[index + 1:]
            if pattern is None and rest:
                pattern, rest = rest[0], rest[1:]
            paths.extend(rest)
            break
        if arg in ("-e", "--regexp") and index + 1 < len(args) and pattern is None:
            pattern, index = args[index + 1], index + 2
            continue
        if arg in _CONTEXT_FLAGS and index + 1 < len(args) and _COUNT.fullmatch(args[index + 1]):
            index += 2
            continue
        if arg.startswith("-") and len(arg) > 1:
            letters = arg[1:] if not arg.startswith("--") else None
            if arg in ("-i", "--ignore-case"):
                ignore_case = True
            elif arg in ("-F", "--fixed-strings"):
                fixed = True
            elif arg in ("-l", "--files-with-matches"):
                files_only = True
            elif arg in _SHOWING_FLAGS or (arg[:2] in ("-A", "-B", "-C")
                                            and _COUNT.fullmatch(arg[2:])):
                pass
            elif letters and all(f"-{letter}" in _SHOWING_FLAGS or letter in "ilF"
                                 for letter in letters):
                ignore_case |= "i" in letters
                files_only |= "l" in letters
                fixed |= "F" in letters
            else:
                return None
            index += 1
            continue
        if pattern is None:
            pattern = arg
        else:
            paths.append(arg)
        index += 1
    if not pattern:
        return None
    return TextSearch(pattern, tuple(paths), ignore_case, fixed, files_only)


def _listing(program: str):  # noqa: ANN202 - a parser of _PROGRAMS
    def parse(args: list[str]) -> ShellRequest | None:
        return Listing(program, tuple(arg for arg in args if not arg.startswith("-")))
    return parse


_PROGRAMS = {
    "cat": _cat, "head": _head, "tail": _tail, "sed": _sed,
    "grep": _grep, "rg": _grep, "ugrep": _grep, "egrep": _grep,
    "ls": _listing("ls"), "wc": _listing("wc"), "find": _listing("find"),
    "bfs": _listing("bfs"),
}
