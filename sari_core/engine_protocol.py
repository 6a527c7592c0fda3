"""What the kernel needs from a workspace engine (the real one is :mod:`sari_core.engine`)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from sari_core.models import (
    FileChange,
    MutationCall,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchResult,
)


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
