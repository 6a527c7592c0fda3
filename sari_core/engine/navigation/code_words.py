"""Whether a word on a line is code or sits in a comment or a string.

A reference is a use in code: the word ``execute`` in a comment is English, and a name in
a string literal is data. The file's tree-sitter parse decides: the smallest node covering
the word is the word itself (an identifier) when it is code, and a comment, or a string's
text, when it is not. Interpolations (``${name}``, ``f"{name}"``) hold code and count.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import Any

from sari_core.engine.index.symbols import toolkit

PARSED_FILES = 256  # parses kept: references, then callers, of one name read the same files

# Node types holding prose or data: comments, string literals and their text pieces.
_NOT_CODE_PARTS = ("comment", "string", "fragment", "content", "escape", "jsx_text", "heredoc")
_COMMENT = ("comment",)
# What can make a word prose or data: on its line (a comment marker, a quote), or spanning
# lines (a block comment, a triple-quoted or backquoted string). A word with none of these
# before it, on its line or open around it, is code without a parse.
_ON_LINE = re.compile(r"#|//|/\*|\*/|--|[\"'`]|^\s*\*")
_OPENERS = re.compile(r'"""|\'\'\'|`|/\*|\*/')


class CodeWords:
    """Answers, for one file, whether the word at a line and column is code."""

    def __init__(self, language: str | None, text: str) -> None:
        self._text = text
        self._lines = text.split("\n")
        self._language = language if language and toolkit(language) is not None else None
        self._root: Any = None
        self._not_code = _COMMENT if language == "python" else _NOT_CODE_PARTS
        self._line_starts: list[int] | None = None
        self._opened: list[tuple[int, str]] | None = None

    def _plainly_code(self, line: int) -> bool:
        """Can nothing on or around the line make a word of it prose or data?"""
        if _ON_LINE.search(self._lines[line - 1]):
            return False
        if self._line_starts is None:
            self._line_starts = [0]
            for text in self._lines[:-1]:
                self._line_starts.append(self._line_starts[-1] + len(text) + 1)
            self._opened = [(m.start(), m.group()) for m in _OPENERS.finditer(self._text)]
        assert self._opened is not None
        before = self._opened[:bisect_left(self._opened, (self._line_starts[line - 1], ""))]
        if not before:
            return True
        quotes = sum(1 for _, token in before if token in ('"""', "\'\'\'", "`"))
        comments = [token for _, token in before if token in ("/*", "*/")]
        return quotes % 2 == 0 and (not comments or comments[-1] == "*/")

    def is_code(self, line: int, start: int, end: int) -> bool:
        """Is ``line[start:end]`` (1-based line, character columns) a word of code?

        Without a parser every word counts, as a plain text search would count it.
        """
        if self._language is None or not 0 < line <= len(self._lines) \
                or self._plainly_code(line):
            return True
        if self._root is None:
            self._root = _parsed(self._language, self._text)
        text = self._lines[line - 1]
        first = len(text[:start].encode("utf-8"))
        last = first + len(text[start:end].encode("utf-8"))
        node = self._root.descendant_for_point_range((line - 1, first), (line - 1, last))
        if node is None:
            return True
        while node is not None and node.type in ("ERROR", "MISSING"):
            node = node.parent
        if node is None:
            return True
        if any(part in node.type for part in self._not_code):
            return False
        return not (self._not_code is _COMMENT and _docstring(node))


def _docstring(node: Any) -> bool:
    """Is the node part of a Python string standing alone as a statement?"""
    while node is not None and node.type not in ("string", "concatenated_string"):
        if node.type in ("interpolation", "expression_statement", "module"):
            return False
        node = node.parent
    if node is not None and node.parent is not None and node.parent.type == "concatenated_string":
        node = node.parent
    return node is not None and node.parent is not None \
        and node.parent.type == "expression_statement" and node.parent.named_child_count == 1


@lru_cache(maxsize=PARSED_FILES)
def _parsed(language: str, text: str) -> Any:
    kit = toolkit(language)
    return None if kit is None else kit.parser.parse(text.encode("utf-8")).root_node
