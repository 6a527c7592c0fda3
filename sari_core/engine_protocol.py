"""What the kernel needs from a workspace engine (the real one is :mod:`sari_core.engine`).

:class:`Engine` is what every engine must serve. The other protocols here are optional
capabilities an engine may add; a caller checks one with ``isinstance(engine, Protocol)``
(they are runtime-checkable) rather than looking a method up by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sari_core.models import (
    FileChange,
    MutationCall,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchResult,
)

if TYPE_CHECKING:
    from sari_core.engine.index.names import MatchMode
    from sari_core.engine.navigation.navigation import Definition


@runtime_checkable
class Engine(Protocol):
    """Serves reads, searches and writes for one or more workspace roots.

    Methods raise :class:`~sari_core.errors.SariError` for refusals (bad path,
    missing file, ambiguous edit); the kernel turns those into responses.
    """

    roots: list[Path]

    def read(self, call: ReadCall) -> ReadResult: ...

    def search(self, call: SearchCall) -> SearchResult: ...

    def plan_mutation(self, call: MutationCall) -> list[FileChange]:
        """Resolve and check an edit/write; return the change(s) without writing."""
        ...

    def apply_mutation(self, changes: list[FileChange]) -> None:
        """Write the planned changes atomically (temp file + rename)."""
        ...

    def poll_changes(self) -> list[FileChange]:
        """Files changed on disk outside the engine since the last poll (cheap)."""
        ...

    def close(self) -> None: ...



@runtime_checkable
class ListsMatchingFiles(Protocol):
    """An engine that can list every file a text or regex search matches."""

    def matching_files(self, call: SearchCall) -> list[str]:
        """Every file ``call`` matches (the set its ``total`` counts), beyond those shown."""
        ...


@runtime_checkable
class NamesFiles(Protocol):
    """An engine that can say which name its responses give the file a path points at.

    With several roots a response names a file ``<root folder>/<path>``, while a client
    may spell it from its own project (``shop/cart.py`` for ``shop/shop/cart.py``); the
    kernel hands policies the engine's name, so a read compares equal to the search hit
    it follows.
    """

    def file_name(self, target: str) -> str | None:
        """The name responses use for ``target``; None when the engine would refuse it."""
        ...


@runtime_checkable
class CountsReferences(Protocol):
    """An engine that knows how often each file's symbols are referenced."""

    def reference_counts(self) -> Mapping[str, int]:
        """References to each file's definitions across the workspace, by file."""
        ...


@runtime_checkable
class KeepsFileModes(Protocol):
    """An engine that writes files and can keep an executable file's exec bits."""

    @property
    def keep_executable_bits(self) -> bool: ...

    @keep_executable_bits.setter
    def keep_executable_bits(self, keep: bool) -> None: ...


@runtime_checkable
class ReportsIndexProgress(Protocol):
    """An engine that builds its index in the background and can say how far it got."""

    def index_progress(self) -> tuple[int, int] | None:
        """(files indexed, files to index) while a build runs, else None."""
        ...


@runtime_checkable
class IndexesDefinitions(Protocol):
    """An engine that keeps an index of where names are defined."""

    @property
    def index_ready(self) -> bool:
        """Whether the index is built (before that, :meth:`definitions` may miss some)."""
        ...

    def definitions(self, query: str, mode: MatchMode | None) -> Sequence[Definition]:
        """Every indexed definition of the names ``query`` matches (``mode`` as in search)."""
        ...
