"""Which classes extend which, as the index sees their bases (``class B(A)`` tags ``A``
as implemented at B's line): a method's overrides, and the classes that inherit it."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from sari_core.engine.names import folded_name
from sari_core.engine.store import IndexStore
from sari_core.engine.symbol_target import Named, Target


def extending(store: IndexStore, classes: set[str], stop: AbstractSet[str] = frozenset()
              ) -> set[str]:
    """Every class extending one of ``classes``, through any number of steps, but not
    through a class in ``stop`` (one overriding the method asked about)."""
    found: set[str] = set()
    todo = set(classes)
    while todo:
        marks = ",".join("?" * len(todo))
        rows = store.reader.execute(
            "SELECT s.file_id, s.line FROM symbols s WHERE s.is_def = 0 AND "
            f"s.kind = 'implementation' AND s.folded IN ({marks}) AND s.name IN ({marks})",
            (*map(folded_name, todo), *todo)).fetchall()
        todo = set()
        for file_id, line in rows:
            for name, in store.reader.execute(
                    "SELECT name FROM symbols WHERE file_id = ? AND is_def = 1 AND line <= ? "
                    "AND end_line >= ? AND kind IN ('class', 'interface', 'struct') "
                    "ORDER BY line DESC LIMIT 1", (file_id, line, line)):
                if name not in found and name not in classes and name not in stop:
                    found.add(name)
                    todo.add(name)
    return found


def overrides(store: IndexStore, target: Target) -> list[Named]:
    """The definitions of the chosen method's name in classes extending its class, at
    any depth: what implements (overrides) it."""
    classes = {n.parent.rsplit(".", 1)[-1] for n in target.chosen if n.parent}
    below = extending(store, classes)
    return [n for n in target.others if n.parent and n.parent.rsplit(".", 1)[-1] in below]
