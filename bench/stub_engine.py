"""An engine for benchmarks that measure the kernel, not the engine.

Every read returns one fixed text from memory, so what a benchmark times around it is
the kernel's pipeline (and whatever plugins it runs). Searches and mutations are not
served: the benchmarks using it read only.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sari_core.models import (
    FileChange,
    Location,
    MutationCall,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchResult,
)


class StubEngine:
    """Serves every read with ``text`` (all its lines), whatever the target."""

    def __init__(self, text: str, root: Path | None = None) -> None:
        # Only the workspace hash and the settings lookup look at the root.
        self.roots = [root if root is not None else Path(tempfile.gettempdir())]
        self.text = text
        self.lines = text.count("\n")

    def read(self, call: ReadCall) -> ReadResult:
        return ReadResult(path=call.target, text=self.text, start_line=1, end_line=self.lines,
                          total_lines=self.lines,
                          location=Location(file=call.target, line=1, end_line=self.lines))

    def search(self, call: SearchCall) -> SearchResult:  # pragma: no cover - not measured
        raise NotImplementedError

    def plan_mutation(self, call: MutationCall) -> list[FileChange]:  # pragma: no cover
        raise NotImplementedError

    def apply_mutation(self, changes: list[FileChange]) -> None:  # pragma: no cover
        raise NotImplementedError

    def poll_changes(self) -> list[FileChange]:
        return []

    def close(self) -> None:
        pass
