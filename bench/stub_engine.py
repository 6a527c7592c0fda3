"""An engine for benchmarks that measure the kernel, not the engine.

Every read returns one fixed text from memory, so what a benchmark times around it is
the kernel's pipeline (and whatever plugins it runs). Searches and mutations are not
served (each raises): the benchmarks using it read only.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sari_core import models
from sari_core.errors import ErrorCode, SariError
from sari_core.models import Location, ReadResult


class StubEngine:
    """Serves every read with ``text`` (all its lines), whatever the target."""

    def __init__(self, text: str, root: Path | None = None) -> None:
        # Only the workspace hash and the settings lookup look at the root.
        self.roots = [root if root is not None else Path(tempfile.gettempdir())]
        self.text = text
        self.lines = text.count("\n")

    def read(self, call: models.ReadCall) -> ReadResult:
        return ReadResult(path=call.target, text=self.text, start_line=1, end_line=self.lines,
                          total_lines=self.lines,
                          location=Location(file=call.target, line=1, end_line=self.lines))

    def search(self, call: models.SearchCall) -> models.SearchResult:
        # The benchmarks measure reads; a search over the stub finds nothing.
        return models.SearchResult(query=call.query, kind=call.kind)

    def plan_mutation(self, call: models.MutationCall) -> list[models.FileChange]:
        raise SariError(ErrorCode.INVALID_ARGS, "the benchmark stub engine is read-only.",
                        "Benchmark writes against sari_core.engine.Workspace.")

    def apply_mutation(self, changes: list[models.FileChange]) -> None:
        raise SariError(ErrorCode.INVALID_ARGS, "the benchmark stub engine is read-only.",
                        "Benchmark writes against sari_core.engine.Workspace.")

    def poll_changes(self) -> list[models.FileChange]:
        return []

    def close(self) -> None:
        pass
