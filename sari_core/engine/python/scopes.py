"""The definitions of indexed files as trees (see :mod:`sari_core.engine.index.scope_tree`)."""

from __future__ import annotations

from collections.abc import Sequence

from sari_core.engine.index.scope_tree import Scope, build_tree
from sari_core.engine.index.store import IndexStore, chunks


def definition_trees(store: IndexStore, file_ids: Sequence[int]) -> dict[int, list[Scope]]:
    """file id -> its definitions as a tree."""
    rows: dict[int, list[tuple[str, str, int, int]]] = {}
    for part in chunks(list(file_ids)):
        marks = ",".join("?" * len(part))
        for file_id, name, kind, line, end_line in store.reader.execute(
                "SELECT file_id, name, kind, line, end_line FROM symbols "
                f"WHERE is_def = 1 AND file_id IN ({marks})", tuple(part)):
            rows.setdefault(int(file_id), []).append((name, kind, int(line), int(end_line)))
    return {file_id: build_tree(defs) for file_id, defs in rows.items()}
