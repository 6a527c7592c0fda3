"""A module-level type alias read as the classes it names: ``AnyByteReceiveStream =
Union[ObjectReceiveStream[bytes], ByteReceiveStream]`` makes an attribute annotated
``AnyByteReceiveStream`` an ``ObjectReceiveStream`` or a ``ByteReceiveStream``, as a type
checker reads it."""

from __future__ import annotations

import re
from typing import Protocol

from sari_core.engine.index.names import folded_name
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.python_text import annotation_classes

_ALIAS = re.compile(r"(?P<name>[A-Za-z_]\w*)\s*(?::\s*(?:\w+\.)?TypeAlias\s*)?=\s*(?P<value>.+)")


class _Texts(Protocol):
    store: IndexStore

    def lines(self, file_id: int) -> list[str]: ...

    def is_class(self, name: str) -> bool: ...


def expand_aliases(texts: _Texts, classes: set[str] | None, known: dict[str, set[str] | None]
                   ) -> set[str] | None:
    """``classes`` with each name that is no class but a module's type alias replaced by
    the classes it names (``known`` keeps what each name was found to be)."""
    if not classes:
        return classes
    out: set[str] = set()
    for name in classes:
        if name not in known:
            known[name] = None if texts.is_class(name) else _aliased(texts, name)
        out |= known[name] or {name}
    return out


def _aliased(texts: _Texts, name: str) -> set[str] | None:
    """The classes the one top-level alias called ``name`` names; None when there is no
    such alias, or several, or its value is no type."""
    rows = texts.store.reader.execute(
        "SELECT file_id, line FROM symbols WHERE is_def = 1 AND folded = ? AND name = ? "
        "AND kind IN ('constant', 'variable')", (folded_name(name), name)).fetchall()
    if len(rows) != 1:
        return None
    lines = texts.lines(int(rows[0][0]))
    line = int(rows[0][1])
    found = _ALIAS.fullmatch(lines[line - 1].split("#", 1)[0].strip()) \
        if 0 < line <= len(lines) else None
    if found is None or found["name"] != name:
        return None
    classes = annotation_classes(found["value"])
    return classes if classes and all(texts.is_class(c) for c in classes) else None
