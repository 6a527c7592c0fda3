"""Which part of a line of Python is code: strings, f-strings' fields, docstrings, and
the strings that are type annotations (forward references)."""

from __future__ import annotations

import re


def annotation_string(line: str, column: int) -> bool:
    """Is the string holding ``column`` a forward reference (its whole text a type, where
    a type is written: after ``:``, ``->``, inside a subscript, or ``cast(``'s first)?"""
    before = line[:column]
    opening = max(before.rfind('"'), before.rfind("'"))
    quote = line[opening]
    closing = line.find(quote, column)
    if opening < 0 or closing < 0 or not _TYPE_STRING.fullmatch(line[opening + 1:closing]):
        return False
    ahead = line[:opening].rstrip()
    if ahead.endswith((":", "->", "|", "cast(", "bound=")):
        return not line.lstrip().startswith(("__all__", "lambda"))
    if not ahead.endswith(("[", ",")):
        return False
    depth = 0  # the subscript the string is in: a generic type's (t.Optional[...])
    for index in range(len(ahead) - 1, -1, -1):
        depth += {"]": 1, "[": -1}.get(ahead[index], 0)
        if depth < 0:
            return bool(_GENERIC.search(ahead[:index]))
    return False


_TYPE_STRING = re.compile(r"[\w.\[\], |]+")
_GENERIC = re.compile(r"(?<![\w.])(?:\w+\.)*[A-Z]\w*\s*\Z")


def in_string(line: str, column: int) -> bool:
    """Is ``column`` inside a quoted string of ``line``? An f-string's ``{field}`` is code."""
    quote, fstring, depth, index = "", False, 0, 0
    while index < column:
        char = line[index]
        if quote and char == "\\":
            index += 2
            continue
        if not quote:
            if char in "\"'":
                quote = line[index:index + 3] if line[index:index + 3] in ('"""', "'''") \
                    else char
                fstring = "f" in line[max(0, index - 2):index].lower() and \
                    not line[max(0, index - 3):index - 2].isalnum() if index >= 1 else False
                index += len(quote)
                continue
        elif fstring and depth and char in "\"'" and line[index:index + len(quote)] != quote:
            closing = line.find(char, index + 1)  # a string inside a field
            index = closing + 1 if 0 <= closing < column else column
            continue
        elif line[index:index + len(quote)] == quote and not depth:
            index += len(quote)
            quote = ""
            continue
        elif fstring and char == "{":
            if line[index:index + 2] == "{{" and not depth:
                index += 2
                continue
            depth += 1
        elif fstring and char == "}" and depth:
            depth -= 1
        index += 1
    return bool(quote) and not (fstring and depth)


_TRIPLE = re.compile(r'"""|\'\'\'')
NO_END = 1 << 30
Spans = dict[int, list[tuple[int, int]]]


def prose_spans(text: str) -> Spans:
    """Per line, the columns inside triple-quoted strings (docstrings): ``[start, end)``."""
    spans: Spans = {}
    opened: tuple[str, int, int] | None = None
    line, line_start, position = 1, 0, 0
    for found in _TRIPLE.finditer(text):
        newlines = text.count("\n", position, found.start())
        if newlines:
            line += newlines
            line_start = text.rfind("\n", 0, found.start()) + 1
        position = found.start()
        column = found.start() - line_start
        if opened is None:
            opened = (found.group(), line, column)
        elif found.group() == opened[0]:
            for number in range(opened[1], line + 1):
                start = opened[2] if number == opened[1] else 0
                end = column + 3 if number == line else NO_END
                spans.setdefault(number, []).append((start, end))
            opened = None
    return spans


def in_prose(spans: Spans, line: int, column: int) -> bool:
    return any(start <= column < end for start, end in spans.get(line, ()))


def continued(before: str, lines: list[str], line: int) -> str:
    """``before`` with the lines ahead of it that open the call or subscript it closes
    (``Request(\n  ...\n).prepare``: the receiver starts lines above)."""
    text = before
    number = line - 1
    while text.count(")") + text.count("]") > text.count("(") + text.count("[") \
            and number > 0 and line - number <= _CONTINUED_LINES:
        text = lines[number - 1].split("#", 1)[0].strip() + " " + text.lstrip()
        number -= 1
    return text


_CONTINUED_LINES = 30


