"""Which part of a line of Python is code: strings, f-strings' fields, docstrings, and
the strings that are type annotations (forward references)."""

from __future__ import annotations

import re
from bisect import bisect_right


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


def _prefix(line: str, quote: int) -> str:
    """The string prefix (``f``, ``rb``, ``Rf``) written just ahead of the quote at
    ``quote``, lower-cased; '' when the letters there are a word's (``return"x"``)."""
    found = re.search(r"(?<![\w])[A-Za-z]{1,2}\Z", line[:quote])
    letters = found.group().lower() if found else ""
    return letters if set(letters) <= set("rfbu") else ""


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
                fstring = "f" in _prefix(line, index)
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


NO_END = 1 << 30
Spans = dict[int, list[tuple[int, int]]]
# Outside a string: a comment, a triple quote, or a one-line string read to its closing
# quote (escapes taken; an unclosed one ends with its line).
_TOKEN = re.compile(r"""#[^\n]*|\"\"\"|'''|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?""")
_CLOSING = {quote: re.compile(r"(?:\\.|[^\\])*?" + quote, re.S) for quote in ('"""', "'''")}


def prose_spans(text: str) -> Spans:
    """Per line, the columns that are prose, not code: inside triple-quoted strings
    (docstrings) and comments, ``[start, end)``.

    The text is read from its start as Python's tokenizer reads it, so a quote or a ``#``
    inside a one-line string (``'\"\"\"'``, ``"#"``) opens nothing: one such string does not
    turn every docstring after it into code and every line of code into a docstring."""
    spans: Spans = {}
    breaks = [found.start() for found in re.finditer("\n", text)]
    position = 0
    while (found := _TOKEN.search(text, position)) is not None:
        token = found.group()
        if token in _CLOSING:
            closing = _CLOSING[token].match(text, found.end())
            end = closing.end() if closing else len(text)
            _add_span(spans, breaks, found.start(), end)
            position = end
            continue
        if token.startswith("#"):
            _add_span(spans, breaks, found.start(), found.end())
        position = found.end()
    return spans


def _add_span(spans: Spans, breaks: list[int], start: int, end: int) -> None:
    """Text offsets ``[start, end)`` as columns of each line (lines from 1)."""
    first, last = bisect_right(breaks, start - 1), bisect_right(breaks, end - 1)
    for index in range(first, last + 1):
        line_start = breaks[index - 1] + 1 if index else 0
        spans.setdefault(index + 1, []).append(
            (start - line_start if index == first else 0,
             end - line_start if index == last else NO_END))


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


