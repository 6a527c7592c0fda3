"""``read mode=outline``: a file's definitions, or a folder's files and theirs, with lines.

One line per definition, ``kind name first-last``, indented by nesting; a folder lists
each file below it (every file, so it is also the folder's listing) with its top two
levels of definitions. The lines are paged like a file (``offset``, ``limit``,
``max_preview_chars``), and ``meta.precision`` says the ranges come from the index's
tree-sitter tags (``name-based``).
"""

from __future__ import annotations

from collections.abc import Callable

from sari_core.engine.files.paths import PathGuard, ResolvedPath
from sari_core.engine.files.textfile import MAX_READ_BYTES, language_of, load_fd
from sari_core.engine.index.scope_tree import build_tree, outline_lines
from sari_core.engine.index.store import IndexStore
from sari_core.engine.index.symbols import extract
from sari_core.engine.navigation.reading import window
from sari_core.engine.python.scopes import definition_trees
from sari_core.models import ReadCall, ReadResult

PRECISION = "name-based"
FOLDER_DEPTH = 2  # definition levels shown per file of a folder
MAX_FOLDER_FILES = 2000


class Outliner:
    """Builds outlines from the index (parsing a file the index does not hold)."""

    def __init__(self, guard: PathGuard, store: IndexStore,
                 ensure_symbols: Callable[[], bool]) -> None:
        self.guard = guard
        self.store = store
        self.ensure_symbols = ensure_symbols

    def read(self, call: ReadCall) -> ReadResult:
        target = self.guard.resolve(call.target, kind="any")
        complete = self.ensure_symbols()
        if not target.rel or target.abs.is_dir():
            lines, files = self._folder(target), None
        else:
            lines, files = self._file(target), 1
        shown = window([line + "\n" for line in lines], 1, len(lines), call)
        extra: dict[str, object] = {"mode": "outline", "precision": PRECISION,
                                    "index_complete": complete}
        if files is None:
            extra["files"] = sum(1 for line in lines if not line.startswith(" "))
        if shown.next_offset is not None:
            extra["next_offset"] = shown.next_offset
        return ReadResult(path=target.display, text=shown.text, start_line=shown.start,
                          end_line=shown.end, total_lines=len(lines), truncated=shown.truncated,
                          preview_degraded=shown.degraded, extra=extra)

    def _file(self, target: ResolvedPath) -> list[str]:
        row = self.store.file(target.root_index, target.rel)
        if row is not None:
            return outline_lines(definition_trees(self.store, [row.id]).get(row.id, []), 0, 99)
        # Not in the index (ignored, or too new): parse it now, opened as reads open files.
        fd = self.guard.open_file(target.root_index, target.rel, target.display)
        data = load_fd(fd, target.display, max_bytes=MAX_READ_BYTES).text.encode("utf-8")
        defs = [(name, kind, line, end) for name, kind, is_def, line, end
                in extract(language_of(target.rel), data) if is_def]
        return outline_lines(build_tree(defs), 0, 99)

    def _folder(self, target: ResolvedPath) -> list[str]:
        rows = sorted(self.store.files_under(target.root_index, target.rel),
                      key=lambda row: row.path)[:MAX_FOLDER_FILES]
        trees = definition_trees(self.store, [row.id for row in rows])
        out = []
        for row in rows:
            out.append(self.guard.display(row.root, row.path))
            out.extend(outline_lines(trees.get(row.id, []), 1, FOLDER_DEPTH + 1))
        return out
