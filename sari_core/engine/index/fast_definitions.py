"""Definitions read from a file's definition lines: the first phase's stand-in for its parse.

The first phase of a build stores every file's text and trigrams, and the definitions
this module finds with one regular expression per language family over the lines that
start one (``def NAME``, ``class NAME``, ``function NAME``, ``fn NAME``, a module-level
``NAME = ...`` in Python). tree-sitter's symbols replace them file by file in the second
phase. They are a stop-gap: a definition without a keyword (a Java method, a C function)
or bound in another way is missed, and a definition's last line is guessed from the
indentation of the lines after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from sari_core.engine.index.symbols import SymbolRow

# The keywords that begin a definition line in the languages without a regex of their own,
# and the kind each gives (the scan of an unindexed tree reads definition lines by them too).
DEFINITION_WORDS = {
    "def": "function", "function": "function", "func": "function", "fn": "function",
    "class": "class", "struct": "class", "interface": "interface", "trait": "interface",
    "enum": "class", "type": "class", "module": "class", "impl": "class",
    "const": "variable", "let": "variable", "var": "variable",
}

# Python: a def or class at any indentation, and a module-level assignment (a constant to
# tree-sitter's tags: ``Matrix = MutableDenseMatrix`` is how many classes get their name).
_PYTHON = re.compile(
    r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)"
    r"|^()()([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
# Other languages: a line starting with a definition keyword (the scan's fallback words).
_KEYWORDS = re.compile(
    r"^([ \t]*)(?:(?:export|pub(?:\([^)]*\))?|async|default|abstract|public|private|"
    r"protected|static|final|override|open|internal|inline|unsafe|extern)[ \t]+)*"
    r"(" + "|".join(DEFINITION_WORDS) + r")[ \t]+\*?([A-Za-z_$][\w$]*)", re.M)
_CLOSERS = ("}", "end")  # a block's own last line in languages with braces or ``end``


def _after_newline(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` (each branch anchored by ``^``) anchored by the newline before the line
    instead: the regex engine then jumps from newline to newline, where ``^`` made it try
    every character. Its matches start one character early; the text's first line is not
    after a newline, and is matched with ``pattern`` itself."""
    assert pattern.pattern.startswith("^")
    return re.compile("\n" + pattern.pattern[1:].replace("|^", "|\n"), pattern.flags)


_PYTHON_LINES = _after_newline(_PYTHON)
_KEYWORDS_LINES = _after_newline(_KEYWORDS)


def _definition_lines(text: str, python: bool) -> Iterator[tuple[int, re.Match[str]]]:
    """``(start of the line, match)`` of each definition line, in order: what
    ``pattern.finditer(text)`` gives. (A match never ends in a newline, so the line after it
    starts after its end: the next one is searched for from there either way.)"""
    first = (_PYTHON if python else _KEYWORDS).match(text)
    if first is not None:
        yield 0, first
    lines = _PYTHON_LINES if python else _KEYWORDS_LINES
    for found in lines.finditer(text, 0 if first is None else first.end()):
        yield found.start() + 1, found


@cache
def _block_end(indent: int) -> re.Pattern[str]:
    """The start of the next line indented no deeper than ``indent`` columns."""
    return re.compile(rf"\n[ \t]{{0,{indent}}}(?=\S)")


def _kind(language: str, keyword: str, name: str, nested_in_class: bool) -> str:
    if not keyword:
        return "constant"
    kind = DEFINITION_WORDS.get(keyword, "function")
    if language == "python" and keyword == "def" and nested_in_class:
        return "method"
    if kind == "variable" and name.isupper():
        return "constant"
    return kind


def _last_line(text: str, start: int, indent: int, line: int, python: bool) -> int:
    """The definition's last line: the line before the next one indented no deeper than
    the definition (blank lines skipped), that line itself when it closes the block."""
    end = _block_end(indent)
    position = text.find("\n", start)
    while position != -1:
        found = end.search(text, position)
        if found is None:  # the block runs to the text's last line that is not blank
            return line + text.count("\n", start, len(text.rstrip()))
        following = text[found.end():found.end() + 3]
        if python and following[:1] in (")", "]", "}"):  # a multi-line signature or value
            position = text.find("\n", found.end())
            continue
        if not python and following.startswith(_CLOSERS):
            return line + text.count("\n", start, found.start()) + 1
        stop = found.start()  # the block ends at its last line that is not blank
        while stop > start and text[stop - 1] in " \t\r\n":
            stop -= 1
        return line + text.count("\n", start, stop)
    return line


def definitions(language: str | None, text: str) -> list[SymbolRow]:
    """``(name, kind, 1, line, end_line)`` of the definitions on ``text``'s definition lines."""
    if not language:
        return []
    python = language == "python"
    rows: list[SymbolRow] = []
    # (indentation, is a class) of the definitions the current line may be inside
    enclosing: list[tuple[int, bool]] = []
    line, counted = 1, 0
    for start, found in _definition_lines(text, python):
        line += text.count("\n", counted, start)
        counted = start
        if python and found.group(6) is not None:
            indent_text, keyword, name = "", "", found.group(6)
        else:
            indent_text, keyword, name = found.group(1), found.group(2), found.group(3)
        indent = len(indent_text.expandtabs(8))
        while enclosing and enclosing[-1][0] >= indent:
            enclosing.pop()
        nested_in_class = bool(enclosing) and enclosing[-1][1]
        if keyword:
            enclosing.append((indent, keyword == "class"))
        end_line = _last_line(text, start, indent, line, python)
        rows.append((name, _kind(language, keyword, name, nested_in_class), 1, line,
                     max(end_line, line)))
    return rows
