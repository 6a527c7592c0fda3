"""How many other files reference the names each file defines (a ranking signal)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sari_core.engine.index.store import IndexStore


def reference_counts(store: IndexStore) -> dict[tuple[int, str], int]:
    """Per defining file: how many other files reference a name it defines.

    Names are matched as names (tags carry no scopes), so a common name counts every
    file calling something of that name: an upper bound, good for ranking.
    """
    referenced_by: dict[str, set[int]] = {}
    for file_id, names in store.names_referenced_by_file():
        for name in names:
            referenced_by.setdefault(name, set()).add(file_id)
    defined: dict[int, set[str]] = {}
    for file_id, name in store.reader.execute(
            "SELECT file_id, name FROM symbols WHERE is_def = 1"):
        defined.setdefault(file_id, set()).add(name)
    counts: dict[int, int] = {}
    for file_id, names in defined.items():
        others: set[int] = set()
        for name in names:
            others |= referenced_by.get(name, set())
        others.discard(file_id)
        if others:
            counts[file_id] = len(others)
    rows = store.files_by_id(counts)
    return {(rows[file_id].root, rows[file_id].path): count
            for file_id, count in counts.items() if file_id in rows}
