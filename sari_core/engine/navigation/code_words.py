"""Whether a word on a line is code or sits in a comment or a string.

A reference is a use in code: the word ``execute`` in a comment is English, and a name in
a string literal is data. The file's tree-sitter parse decides: the smallest node covering
the word is the word itself (an identifier) when it is code, and a comment, or a string's
text, when it is not. Interpolations (``${name}``, ``f"{name}"``) hold code and count.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sari_core.engine.index.symbols import toolkit

PARSED_FILES = 256  # parses kept: references, then callers, of one name read the same files

# Node types holding prose or data: comments, string literals and their text pieces.
_NOT_CODE_PARTS = ("comment", "string", "fragment", "content", "escape", "jsx_text", "heredoc")
_COMMENT = ("comment",)


class CodeWords:
    """Answers, for one file, whether the word at a line and column is code."""

    def __init__(self, language: str | None, text: str) -> None:
        self._lines = text.split("\n")
        self._root: Any = None
        self._not_code = _COMMENT if language == "python" else _NOT_CODE_PARTS
        if language and toolkit(language) is not None:
            self._root = _parsed(language, text)

    def is_code(self, line: int, start: int, end: int) -> bool:
        """Is ``line[start:end]`` (1-based line, character columns) a word of code?

        Without a parser every word counts, as a plain text search would count it.
        """
        if self._root is None or not 0 < line <= len(self._lines):
            return True
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
