"""What a decorator makes of a Python definition: a property's accessor, a context manager.

``@property def request(self)`` runs at every ``response.request`` (and its setter at every
``response.request = value``): a type checker's call hierarchy counts those reads and writes
as calls, though no parenthesis follows the name, and a getter, its setter and its deleter
are one symbol. The index knows a definition is an accessor by the decorators directly
above its ``def`` line (``@property``, ``@request.setter``); the tags record each decorator
as a call of its last name, so only definitions with such a row above them have their
text read.

``@contextmanager def stream(...) -> Iterator[Response]`` is entered by ``with stream(...)
as response``: what it yields, the annotation's first argument, is what the name holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sari_core.engine.index.names import folded_name
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.decorators import MAX_DECORATOR_LINES, decorated_start

PYTHON_SUFFIXES = (".py", ".pyi")
_DECORATOR_NAMES = ("property", "setter", "getter", "deleter")


def is_accessor(decorators: Sequence[str], name: str) -> bool:
    """Do ``decorators`` (the lines above a ``def name``) make it a property's accessor?"""
    accessor = re.compile(
        rf"\s*@\s*(?:(?:\w+\.)*property|{re.escape(name)}\.(?:setter|getter|deleter))\s*(?:#.*)?$")
    return any(accessor.match(line) for line in decorators)


def accessor_lines(store: IndexStore, names: Sequence[str]) -> dict[tuple[int, int], str]:
    """(file id, line) of each Python definition of ``names`` that is a property's getter,
    setter or deleter, and its name."""
    if not names:
        return {}
    marks = ",".join("?" * len(names))
    rows = store.reader.execute(
        "SELECT d.file_id, d.line, d.name, f.path FROM symbols d JOIN files f ON f.id = d.file_id "
        f"WHERE d.folded IN ({marks}) AND d.name IN ({marks}) AND d.is_def = 1",
        (*map(folded_name, names), *names)).fetchall()
    defined = [(int(file_id), int(line), str(name)) for file_id, line, name, path in rows
               if str(path).endswith(PYTHON_SUFFIXES)]
    if not defined:
        return {}
    # a decorator naming property, setter, getter or deleter in the lines above
    decorators: dict[int, set[int]] = {}
    for hit in store.references(_DECORATOR_NAMES, ("call",),
                                {file_id for file_id, _, _ in defined}):
        decorators.setdefault(hit.file_id, set()).add(hit.line)
    candidates = [(file_id, line, name) for file_id, line, name in defined
                  if any(line - MAX_DECORATOR_LINES <= above < line
                         for above in decorators.get(file_id, ()))]
    if not candidates:
        return {}
    last_line: dict[int, int] = {}
    for file_id, line, _ in candidates:
        last_line[file_id] = max(last_line.get(file_id, 0), line)
    texts = store.first_lines(last_line)  # each file read up to its last definition's line
    found = {}
    for file_id, line, name in candidates:
        lines = [text.decode("utf-8", "replace") for text in texts.get(file_id, [])]
        first = decorated_start(lines, line)
        if is_accessor(lines[first - 1:line - 1], name):
            found[(file_id, line)] = name
    return found


_CONTEXT_MANAGER = re.compile(r"\s*@\s*(?:contextlib\.)?(?:async)?contextmanager\s*(?:#.*)?$")
_YIELDING = frozenset(("Iterator", "Generator", "AsyncIterator", "AsyncGenerator", "Iterable",
                       "AsyncIterable"))


def yielded_annotation(lines: Sequence[str], line: int, annotation: str) -> str:
    """For a ``@contextmanager`` function at ``line`` annotated ``Iterator[X]`` (or
    ``Generator[X, ...]``), ``X``: what ``with`` binds; else ``annotation`` itself."""
    if not any(_CONTEXT_MANAGER.match(text)
               for text in lines[decorated_start(lines, line) - 1:line - 1]):
        return annotation
    head, _, rest = annotation.strip().partition("[")
    if head.strip().rsplit(".", 1)[-1] not in _YIELDING or not rest.endswith("]"):
        return annotation
    depth = 0
    for index, char in enumerate(rest[:-1]):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            return rest[:index]
    return rest[:-1]


_OVERLOAD = re.compile(r"\s*@\s*(?:\w+\.)*overload\s*(?:#.*)?$")


def is_overload(lines: Sequence[str], line: int) -> bool:
    """Is the definition at ``line`` (from 1) of ``lines`` an ``@overload`` signature?
    Its overloads and their implementation are one function to a type checker: asked at
    any of them, it answers for all."""
    return any(_OVERLOAD.match(text) for text in lines[decorated_start(lines, line) - 1:line - 1])
