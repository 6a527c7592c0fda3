"""Reading Python's own spelling of types and names from source lines: annotations,
the receiver chain ahead of ``.name``, imports, signatures."""

from __future__ import annotations

import re
from functools import lru_cache

from sari_core.engine.index.scope_tree import Scope, innermost

CLASS_KINDS = ("class", "interface", "struct", "trait", "impl")
MAX_HEADER_LINES = 30  # a definition's signature may run over this many lines
# Wrappers that leave their argument's type: Optional[X] is an X (or None), and so on.
_TRANSPARENT = frozenset(("Optional", "Union", "Final", "ClassVar", "Annotated", "Type",
                          "type", "Required", "NotRequired", "ReadOnly"))
_NOT_A_CLASS = frozenset(("None", "Any", "t", "typing", "te", "typing_extensions"))
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
CONSTRUCTOR = re.compile(r"(?:\w+\.)*([A-Z]\w*)\s*\(")
_TYPE_TEXT = re.compile(r"[\w.\[\], |'\"]+\Z")


def annotation_classes(text: str) -> set[str] | None:
    """The classes an annotation names (the last part of each dotted name), looking
    through quotes, ``Optional``/``Union``/``X | None``; None if it is no plain type
    expression (a generic container is its own class: ``List[Template]`` is a ``List``)."""
    text = text.strip().strip("\"'").strip()
    if not text or not _TYPE_TEXT.match(text):
        return None
    text = text.replace('"', "").replace("'", "")
    found: set[str] = set()
    for part in top_level(text, "|"):
        found |= _one_annotation(part.strip())
    return found - _NOT_A_CLASS or None


def _one_annotation(text: str) -> set[str]:
    head, _, rest = text.partition("[")
    outer = head.strip().rsplit(".", 1)[-1]
    if rest and outer in _TRANSPARENT:
        inner = rest.rstrip().removesuffix("]")
        arguments = top_level(inner, ",")
        if outer == "Annotated":
            arguments = arguments[:1]
        return {name for argument in arguments for name in _one_annotation(argument.strip())}
    return {outer} if IDENTIFIER.fullmatch(outer) else set()


def top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def receiver_chain(before: str) -> list[str]:
    """The parts of the expression ahead of the last dot of ``before``:
    ``x = self.env.get_template(name).`` -> ``['self', 'env', 'get_template()']``
    (a call's arguments dropped, its parentheses kept); [] when it is not a plain chain."""
    text = before.rstrip()
    text = text[:-1].rstrip() if text.endswith(".") else text
    index = len(text)
    while index > 0:
        char = text[index - 1]
        if char in ")]":
            depth, index = 0, index
            while index > 0:
                depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(text[index - 1], 0)
                index -= 1
                if depth == 0:
                    break
            continue
        if char.isalnum() or char in "_.":
            index -= 1
            continue
        break
    chain = text[index:]
    parts = []
    for part in top_level(chain, "."):
        name = IDENTIFIER.match(part.strip())
        if name is None:
            return []
        rest = part.strip()[name.end():].strip()
        if rest.startswith("[") and _closing(rest) == len(rest) - 1:  # x[1]: an element
            position = rest[1:-1].strip()
            position = position if re.fullmatch(r"-?\d+", position) else ""
            parts.append(f"{name.group()}[{position}]")
            continue
        parts.append(name.group() + ("()" if rest.endswith(")") else ""))
    return parts if all(parts) else []


_IMPORT_AS = re.compile(r"^\s*import\s+(?P<names>[\w., ]+)")
_FROM_IMPORT = re.compile(
    r"^\s*from\s+(?P<module>[\w.]+)\s+import\s+(?P<names>[\w., ()]+?)\s*(?:#.*)?$")


def imported_modules(lines: list[str]) -> set[str]:
    """The names ``import`` statements bind to modules: ``import os.path`` -> ``os``,
    ``import numpy as np`` -> ``np``."""
    found: set[str] = set()
    for line in lines:
        plain = _IMPORT_AS.match(line)
        if plain is None:
            continue
        for part in plain["names"].split(","):
            name, _, alias = part.strip().partition(" as ")
            if name.strip():
                found.add(alias.strip() or name.strip().split(".", 1)[0])
    return found


def module_aliases(lines: list[str]) -> dict[str, str]:
    """What each name a file imports stands for, as a dotted path: ``import a.b as k``
    -> ``{k: a.b}``, ``import a.b`` -> ``{a: a}``, ``from . import nodes`` ->
    ``{nodes: .nodes}``, ``from a import b as c`` -> ``{c: a.b}``."""
    found: dict[str, str] = {}
    for number, line in enumerate(lines):
        if "import" not in line:
            continue
        if "(" in line and ")" not in line:  # from m import (\n a,\n b,\n)
            following = lines[number + 1:number + MAX_IMPORT_LINES]
            closing = next((i for i, text in enumerate(following) if ")" in text), None)
            if closing is not None:
                line = " ".join(text.split("#", 1)[0] for text in [line, *following[:closing + 1]])
        plain, dotted = _IMPORT_AS.match(line), _FROM_IMPORT.match(line)
        if dotted:
            base = dotted["module"]
            for part in re.sub(r"#[^,]*", "", dotted["names"]).strip("() ").split(","):
                name, _, alias = part.strip().partition(" as ")
                if name.strip():
                    joiner = "" if base.endswith(".") else "."
                    found[(alias or name).strip()] = f"{base}{joiner}{name.strip()}"
        elif plain:
            for part in plain["names"].split(","):
                name, _, alias = part.strip().partition(" as ")
                if name.strip():
                    key = alias.strip() or name.strip().split(".", 1)[0]
                    found[key] = name.strip() if alias.strip() else key
    return found


def _closing(text: str) -> int:
    """Where the bracket opening ``text`` closes (-1 when it does not)."""
    depth = 0
    for index, char in enumerate(text):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
    return -1


def closed(value: str, lines: list[str], line: int) -> str:
    """``value`` with the lines after ``line`` that close the brackets it opens."""
    number = line
    while value.count("(") + value.count("[") > value.count(")") + value.count("]") \
            and number < len(lines) and number - line < MAX_HEADER_LINES:
        value = value + " " + lines[number].split("#", 1)[0].strip()
        number += 1
    return value


def is_parameter(lines: list[str], line: int, name: str) -> bool:
    """Is ``name`` a parameter of the function defined at ``line``?"""
    header = signature(lines, line)
    opened = header.find("(")
    return opened >= 0 and re.search(
        rf"[(,]\s*\**{re.escape(name)}\s*(?:[:=,)])", header[opened:]) is not None


def parameter_annotation(lines: list[str], tree: list[Scope], line: int, name: str
                         ) -> set[str] | None:
    """The classes the annotation of parameter ``name`` of the function holding ``line``
    names."""
    text = parameter_annotation_text(lines, tree, line, name)
    return annotation_classes(text) if text is not None else None


def parameter_annotation_text(lines: list[str], tree: list[Scope], line: int, name: str
                              ) -> str | None:
    """The annotation of parameter ``name`` of the function holding ``line``, as written."""
    scope = innermost(tree, line)
    if scope is None or scope.kind not in ("function", "method"):
        return None
    header = signature(lines, scope.line)
    found = re.search(rf"[(,]\s*\**{re.escape(name)}\s*:\s*", header)
    if not found:
        return None
    rest = header[found.end():]
    depth, end = 0, len(rest)
    for index, char in enumerate(rest):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if depth < 0 or (depth == 0 and char in ",="):
            end = index
            break
    return rest[:end]


def signature(lines: list[str], line: int) -> str:
    """A definition's signature, from its ``def`` line to the colon ending it."""
    text = []
    for number in range(line, min(line + MAX_HEADER_LINES, len(lines) + 1)):
        text.append(lines[number - 1].split("#", 1)[0].strip())
        if re.search(r"\)\s*(->.*)?:\s*(?:\.\.\.|pass)?\s*$", text[-1]):  # def f(): ...
            break
    return " ".join(text)


def parameters(header: str) -> str:
    """The text between a signature's parentheses (``header`` from :func:`signature`;
    a decorator's arguments ahead of the ``def`` are not its parameters)."""
    named = re.search(r"\bdef\s+\w+\s*(?:\[[^\]]*\]\s*)?\(", header)
    start = named.end() - 1 if named else header.find("(")
    if start < 0:
        return ""
    depth = 0
    for position in range(start, len(header)):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(header[position], 0)
        if depth == 0:
            return header[start + 1:position]
    return header[start + 1:]


_OPENS, _CLOSES = "([{", ")]}"
_COMPREHENSION = re.compile(r"for\s+([\w\s,()\[\]*]+?)\s+in\b")
_COMPREHENSION_LINES = 10  # a comprehension may run over this many lines either side
_COMPREHENSION_LEVELS = 4  # and hold the use this many brackets deep


def comprehension_bound(name: str, lines: list[str], line: int, before: str, after: str
                        ) -> bool:
    """Is ``name``, used between ``before`` and ``after`` on ``line``, a variable of a
    comprehension holding it (``[c.name for n, c in items]``: bound after its use; the
    comprehension may be brackets further out: ``f(Item(c.name) for n, c in items)``)?"""
    first = max(1, line - _COMPREHENSION_LINES)
    if not _for_clause(name).search("\n".join(lines[first - 1:line + _COMPREHENSION_LINES])):
        return False  # no ``for`` naming it nearby: the common case, decided cheaply
    ahead = [text.split("#", 1)[0] for text in lines[first - 1:line - 1]] + [before]
    behind = [after] + [text.split("#", 1)[0]
                        for text in lines[line:line + _COMPREHENSION_LINES]]
    backwards, forwards = "\n".join(ahead)[::-1], "\n".join(behind)
    word = re.compile(rf"\b{re.escape(name)}\b")
    back = ahead_end = 0
    for _ in range(_COMPREHENSION_LEVELS):  # each enclosing pair of brackets, outwards
        opened = _to_bracket(backwards, back, _CLOSES, _OPENS)
        closed = _to_bracket(forwards, ahead_end, _OPENS, _CLOSES)
        if opened is None or closed is None:
            return False  # no brackets further out: no comprehension
        back, ahead_end = opened + 1, closed + 1
        inside = backwards[:opened][::-1] + " " + forwards[:closed]
        if _binds(inside, word):
            return True
    return False


@lru_cache(maxsize=256)
def _for_clause(name: str) -> re.Pattern[str]:
    return re.compile(rf"\bfor\b[^\n]*?\b{re.escape(name)}\b[^\n]*?\bin\b")


def _binds(inside: str, word: re.Pattern[str]) -> bool:
    """Does a ``for ... in`` clause of the brackets' own level bind ``word``?"""
    depth = 0
    for position, char in enumerate(inside):
        if char in _OPENS:
            depth += 1
        elif char in _CLOSES:
            depth -= 1
        elif depth == 0 and inside.startswith("for", position) and (
                position == 0 or not (inside[position - 1].isalnum()
                                      or inside[position - 1] == "_")):
            found = _COMPREHENSION.match(inside, position)
            if found and word.search(found.group(1)):
                return True
    return False


def _to_bracket(text: str, start: int, opens: str, closes: str) -> int | None:
    """The position in ``text`` of the bracket closing the one ``text[start:]`` starts
    inside (reading ``text`` in its own direction: ``opens`` nest, ``closes`` end)."""
    depth = 0
    for position in range(start, len(text)):
        if text[position] in opens:
            depth += 1
        elif text[position] in closes:
            depth -= 1
            if depth < 0:
                return position
    return None


def return_annotation(lines: list[str], line: int) -> str | None:
    header = signature(lines, line)
    found = re.search(r"\)\s*->\s*(.+?):\s*(?:\.\.\.|pass)?\s*$", header)
    return found.group(1) if found else None


def class_at(tree: list[Scope], line: int) -> str | None:
    """The innermost class whose lines hold ``line``."""
    found, level = None, tree
    while True:
        inside = [scope for scope in level if scope.line <= line <= scope.end_line]
        if not inside:
            return found
        scope = min(inside, key=lambda s: s.end_line - s.line)
        if scope.kind in CLASS_KINDS and scope.line != line:
            found = scope.name
        level = scope.children


MAX_IMPORT_LINES = 200  # names listed in one parenthesised import
