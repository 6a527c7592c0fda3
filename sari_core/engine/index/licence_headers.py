"""The licence and copyright boilerplate at the top of a file, which the word index leaves out.

A project puts the same header atop every file: a copyright line, an SPDX identifier, a
licence's text (MIT, BSD, Apache, GPL), credits. Indexed as words it makes every file
hold ``clause`` (``BSD-3-Clause``), ``software``, ``warranty`` or ``permission``, and a
concept query with one of them ranks files for their header. Literal and regular
expression search read the text itself (the trigram index) and still find it.

What counts, by the shape of the text alone (no list of files or projects; the same text
gives the same lines, as the word index needs):

* the file's leading comments: lines starting with a comment marker (``#``, ``//``,
  ``--``, ``;``, ``%``, a ``/* ... */``, ``<!-- ... -->`` or ``--[[ ... ]]`` block), blank lines between
  them, after a ``#!`` line, an XML or PHP opening line; cut into paragraphs at empty
  comment lines. Every paragraph up to the last one that reads as a licence
  (``LICENCE_MARKERS``) is header: the project's name, its links and credits come with
  the copyright lines, and a comment after the licence (what the file does) stays;
* a Python module docstring right after them: only its paragraphs that read as a
  licence, and those between two such (a module's docstring is its documentation; the
  copyright and licence fields of a Sphinx-style docstring close it).
"""

from __future__ import annotations

import re

HEAD_LINES = 400  # a header longer than this is not looked for past it
LICENCE_MARKERS = re.compile(
    r"spdx-license-identifier"
    r"|\bcopyright\b\s*(?:\(c\)|©|\d{4}|:|notice)|:copyright:|©\s*\d{4}|\(c\)\s*\d{4}"
    r"|\ball\s+rights\s+reserved"
    r"|\blicen[cs]ed\s+(?:under|to\s+the|by)\b|^\W*licen[cs]e\s*:|:licen[cs]e:"
    r"|\blicen[cs]e\s+block\b|\bgoverned\s+by\s+(?:a|an|the)\s+[\w-]+\s+licen[cs]e"
    r"|\bsee\s+(?:the\s+)?licen[cs]e[\w.]*\s+(?:file\s+)?for\b"
    r"|\bpermission\s+is\s+hereby\s+granted|\bthe\s+software\s+is\s+provided"
    r"|\bredistribution\s+and\s+use\s+in\s+source|\byou\s+(?:can|may)\s+redistribute\s+it"
    r"|\bwithout\s+(?:any\s+)?warrant(?:y|ies)\b|[\"“]as\s+is[\"”]"
    r"|\bgnu\s+(?:lesser\s+|library\s+|affero\s+)?general\s+public\s+licen[cs]e"
    r"|\b(?:apache|mozilla\s+public|eclipse\s+public|mit|bsd|isc)\s+licen[cs]e"
    r"|\b(?:bsd|mit|apache)[- ]style\s+licen[cs]e"
    r"|(?:apache\.org|gnu\.org|opensource\.org)/licen[cs]es",
    re.IGNORECASE)
# A line comment: the marker, then a space, another mark or the line's end (``#include``
# and ``#define`` are not comments).
_LINE_COMMENT = re.compile(r"\s*(?:#(?=[\s#!*=-]|$)|//|--(?=\s|$|-)|;|%)")
_PREAMBLE = re.compile(r"#!|<\?(?:xml|php)\b|\s*#.*coding[:=]")
_BLOCK_OPENERS = (("/*", "*/"), ("<!--", "-->"), ("--[[", "]]"))
_DOCSTRING = re.compile(r"\s*[rRuU]?(\"\"\"|''')")
_MARKS = re.compile(r"^[\s#/*;%!<>=[-]+|[\s/*>=\]-]+$")  # a comment line's markers and frames


def _reads_as_licence(paragraph: list[str]) -> bool:
    return LICENCE_MARKERS.search(" ".join(paragraph)) is not None


def _paragraphs(lines: list[str], first: int) -> list[tuple[list[int], list[str]]]:
    """Line numbers and texts of the paragraphs of comment ``lines`` (``first``: the first
    one's number), markers taken off; an empty comment line or an empty line ends one."""
    out: list[tuple[list[int], list[str]]] = []
    numbers: list[int] = []
    texts: list[str] = []
    for number, line in enumerate(lines, first):
        text = _MARKS.sub("", line)
        if text:
            numbers.append(number)
            texts.append(text)
        elif numbers:
            out.append((numbers, texts))
            numbers, texts = [], []
        else:
            continue
    if numbers:
        out.append((numbers, texts))
    return out


def _leading_comments(lines: list[str]) -> tuple[int, int]:
    """The first and one past the last index of ``lines`` holding the leading comments (and
    the blank lines among them)."""
    index = 0
    while index < len(lines) and _PREAMBLE.match(lines[index]):
        index += 1
    start = end = index
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        opener = next((pair for pair in _BLOCK_OPENERS if stripped.startswith(pair[0])), None)
        if opener is not None:
            close, rest = index, line[line.find(opener[0]) + len(opener[0]):]
            while opener[1] not in rest:
                close += 1
                if close >= len(lines):
                    return start, end  # never closed: not a header
                rest = lines[close]
            if rest.split(opener[1], 1)[1].strip():
                break  # code after the comment on its last line
            index = end = close + 1
        elif _LINE_COMMENT.match(line):
            index = end = index + 1
        elif not stripped:
            index += 1
        else:
            break
    return start, end


def licence_lines(text: str) -> list[int]:
    """The numbers (from 1) of ``text``'s lines that are licence boilerplate, in order."""
    head = text[:HEAD_LINES * 200].split("\n", HEAD_LINES)[:HEAD_LINES]
    start, end = _leading_comments(head)
    found: list[int] = []
    paragraphs = _paragraphs(head[start:end], start + 1)
    last = max((i for i, (_, texts) in enumerate(paragraphs) if _reads_as_licence(texts)),
               default=-1)
    for numbers, _ in paragraphs[:last + 1]:
        found += numbers
    found += _docstring_licence(head, end)
    return found


def _docstring_licence(lines: list[str], index: int) -> list[int]:
    """The licence paragraphs of a module docstring starting at or after ``lines[index]``
    (blank lines skipped), and the paragraphs between them."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    opened = _DOCSTRING.match(lines[index]) if index < len(lines) else None
    if opened is None:
        return []
    quote = opened.group(1)
    close = index
    rest = lines[index][opened.end():]
    while quote not in rest:
        close += 1
        if close >= len(lines):
            return []
        rest = lines[close]
    first = lines[index][opened.end():]
    if close == index:
        body = [first.split(quote, 1)[0]]
    else:
        body = [first, *lines[index + 1:close], lines[close].split(quote, 1)[0]]
    paragraphs = _paragraphs(body, index + 1)
    marked = [i for i, (_, texts) in enumerate(paragraphs) if _reads_as_licence(texts)]
    if not marked:
        return []
    return [number for numbers, _ in paragraphs[marked[0]:marked[-1] + 1] for number in numbers]
