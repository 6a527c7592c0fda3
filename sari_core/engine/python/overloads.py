"""What a call of an ``@overload`` function returns, chosen by its first argument as a type
checker chooses: the first signature, in the order written, whose first parameter's type
accepts the argument.

``i = item(34)`` holds an ``Integer`` when ``item``'s signatures are ``(value: bool) ->
Bool``, ``(value: int) -> Integer``, ...: the index reads the argument's kind from its text
(a literal, a list or dict display, a constructor's name) and the signatures' first
annotations from theirs. An argument whose kind the text does not show chooses nothing.
"""

from __future__ import annotations

import re
from typing import Protocol

from sari_core.engine.index.names import folded_name
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.decorated import is_overload
from sari_core.engine.python.python_text import annotation_classes, top_level

MAX_SIGNATURE_LINES = 12
_CALL = re.compile(r"(?:\w+\.)*(?P<callee>[A-Za-z_]\w*)\s*\((?P<arguments>.*)\)\Z", re.S)
_HEADER_END = re.compile(r"\)\s*(?:->\s*(?P<returns>.+?))?\s*:\s*(?:\.\.\.)?\s*(?:#.*)?$")
# what an argument written so is accepted as, most specific first (bool is an int, an
# int is accepted where a float is: the numeric tower)
_LITERALS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"(True|False)\Z"), frozenset(("bool", "int", "float"))),
    (re.compile(r"-?\d[\d_]*\Z"), frozenset(("int", "float"))),
    (re.compile(r"-?(\d[\d_]*)?\.\d[\d_]*(e-?\d+)?\Z|-?\d+e-?\d+\Z"), frozenset(("float",))),
    (re.compile(r"[rbuRBU]?(\"|').*\Z", re.S), frozenset(("str",))),
    (re.compile(r"\[.*\]\Z", re.S), frozenset(("list", "List", "Sequence"))),
    (re.compile(r"\{\s*\}\Z|\{.*:.*\}\Z", re.S), frozenset(("dict", "Dict", "Mapping"))),
)


class _Lines(Protocol):
    store: IndexStore

    def lines(self, file_id: int) -> list[str]: ...


def overload_returns(definitions: _Lines, value: str) -> set[str] | None:
    """The classes ``value`` (a call: ``item(34)``, ``api.item("x")``) returns when the
    function called is overloaded and its first argument chooses one signature."""
    call = _CALL.match(value.strip())
    if call is None:
        return None
    arguments = top_level(call["arguments"], ",")
    accepted = _accepted(arguments[0].strip()) if arguments and arguments[0].strip() else None
    if not accepted:
        return None
    rows = definitions.store.reader.execute(
        "SELECT file_id, line FROM symbols WHERE is_def = 1 AND folded = ? AND name = ? AND "
        "kind = 'function' ORDER BY file_id, line",
        (folded_name(call["callee"]), call["callee"])).fetchall()
    signatures = [(int(f), int(n)) for f, n in rows
                  if is_overload(definitions.lines(int(f)), int(n))]
    if not signatures or len({file_id for file_id, _ in signatures}) > 1:
        return None  # not overloaded, or overloads of that name in several modules
    argument = arguments[0].strip()
    for file_id, line in signatures:
        first, returns = _first_parameter(definitions.lines(file_id), line)
        if first is None or not returns:
            continue
        verdicts = [_holds(argument, element) for name, element in first if name in accepted]
        if True in verdicts:
            return annotation_classes(returns)
        if None in verdicts:
            return None  # the elements' kind is not shown: no signature can be chosen
    return None


def _holds(argument: str, element: str | None) -> bool | None:
    """Does a list display's first element fit a ``Sequence[element]`` annotation (an empty
    list fits any); None when its kind is not shown."""
    if element is None or not argument.startswith("["):
        return True
    items = top_level(argument[1:-1], ",")
    if not items or not items[0].strip():
        return True
    kinds = _accepted(items[0].strip())
    return None if kinds is None else element in kinds


def _accepted(argument: str) -> frozenset[str] | None:
    """The type names an argument written so is accepted as; None when unknown."""
    for pattern, names in _LITERALS:
        if pattern.match(argument):
            return names
    made = re.match(r"(?:\w+\.)*([A-Za-z_]\w*)\s*\(", argument)
    return frozenset((made.group(1),)) if made and argument.endswith(")") else None


def _first_parameter(lines: list[str], line: int
                     ) -> tuple[set[tuple[str, str | None]] | None, str | None]:
    """(each type of the first parameter's annotation with its element type, the return
    annotation) of the signature at ``line``; ``self`` and ``cls`` are passed over."""
    header = ""
    for number in range(line, min(line + MAX_SIGNATURE_LINES, len(lines) + 1)):
        header += " " + lines[number - 1].strip()
        end = _HEADER_END.search(header)
        if end is not None:
            break
    else:
        return None, None
    opened = header.find("(")
    parameters = [part.strip() for part in top_level(header[opened + 1:end.start()], ",")]
    parameters = [part for part in parameters if part and part.split(":")[0] not in
                  ("self", "cls", "/", "*")]
    if not parameters or ":" not in parameters[0]:
        return None, end["returns"]
    annotation = parameters[0].split(":", 1)[1].split("=", 1)[0]
    names = set()
    for part in top_level(annotation, "|"):
        head, _, element = part.strip().partition("[")
        element = element.rstrip("]").strip().rsplit(".", 1)[-1]
        names.add((head.rsplit(".", 1)[-1], element if element and "," not in element else None))
    return names, end["returns"]
