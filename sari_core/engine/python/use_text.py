"""What the text around one occurrence of a name says about it: the receiver written
before ``.name``, whether the name is called or handed on, whether it is a string of the
module's ``__all__``."""

from __future__ import annotations

import re

_ALL = re.compile(r"\s*__all__\s*(?::[^=]*)?\+?=")
_ALL_ITEMS = re.compile(r"\s*(?:[\[(]\s*)?(?:(?:'[\w.]*'|\"[\w.]*\")\s*,?\s*)*(?:#.*)?")
MAX_ALL_LINES = 500


def exported(text: str, found: re.Match[str], lines: list[str], line: int) -> bool:
    """Is the name found a whole string of the module's ``__all__`` (what ``import *``
    takes: a type checker counts it a reference of the module's definition)?"""
    quote = text[found.start() - 1:found.start()]
    if quote not in ("'", '"') or text[found.end():found.end() + 1] != quote:
        return False
    for number in range(line, max(0, line - MAX_ALL_LINES), -1):
        if _ALL.match(lines[number - 1]):
            return True
        if number < line and not _ALL_ITEMS.fullmatch(lines[number - 1]):
            return False
    return False


def called(after: str) -> bool:
    """Is the name called (or handed on as a value: ``f(x.send)``, ``key=x.send``)?"""
    rest = after.lstrip()
    return not rest or rest[0] in "(),]}:;" or rest.startswith(("if ", "else", "or ", "and "))


def receiver_of(before: str) -> str:
    """What ``before`` ends with, ahead of the dot: ``session`` in ``session.``, the class
    called in ``requests.Request(...).`` (``Request``), ``super()``; else ''."""
    text = before[:-1].rstrip() if before.endswith(".") else before
    if text.endswith("()") and text[:-2].endswith("super"):
        return "super()"
    if text.endswith(")"):  # a call: the name called, past its balanced arguments
        depth = 0
        for index in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[index], 0)
            if depth == 0:
                callee = re.search(r"(\w+)\s*\Z", text[:index])
                return callee.group(1) if callee else ""
        return ""
    found = re.search(r"(\w+)\s*\Z", text)
    return found.group(1) if found else ""
