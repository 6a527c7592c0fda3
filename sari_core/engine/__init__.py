"""The workspace engine: roots and path safety, the index, search, reads and writes.

:class:`Workspace` (:mod:`.workspace`) is the facade the kernel uses
(``sari_core.engine_protocol.Engine``). Behind it, one room per job, lower rooms first:

- :mod:`.files`: roots, path safety, which files belong, a file's bytes read as text.
- :mod:`.index`: the SQLite index: its schema, its build, definitions, the word index.
- :mod:`.python`: what Python source says about a name: scopes, types, subclasses.
- :mod:`.changes`: changes noticed on disk, git's diff, ``edit`` and ``write``.
- :mod:`.search`: ``search`` from the index: query kinds, text, regex, symbols, words, ranking.
- :mod:`.scan`: ``search`` answered by ripgrep, before the first index and for some regexes.
- :mod:`.navigation`: ``read`` modes, outlines, references, callers and implementations.

:class:`Workspace` is imported on first use, so a symbol worker process that imports
:mod:`sari_core.engine.index.symbols` does not load the rest of the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.engine.workspace import Workspace

__all__ = ["Workspace"]


def __getattr__(name: str) -> Any:
    if name == "Workspace":
        from sari_core.engine.workspace import Workspace

        return Workspace
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
