"""An in-memory engine for plugin tests: files are a dict, search is a substring scan.

It serves the :class:`~sari_core.engine_protocol.Engine` protocol and nothing optional, so
a policy tested over it also proves it copes with an engine that lacks a capability.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from sari_core.errors import ErrorCode, SariError
from sari_core.models import (
    FileChange,
    Location,
    MutationCall,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchMatch,
    SearchResult,
)


class MemoryEngine:
    """Serves ``files`` (relative path -> text) as one workspace root.

    :ivar external: changes a test queues as if made on disk by someone else; the next
        ``poll_changes`` hands them to the kernel.
    """

    def __init__(self, files: dict[str, str], root: str = "/tmp/sari-memory-ws") -> None:
        self.files = dict(files)
        self.roots = [Path(root)]
        self.external: list[FileChange] = []

    def read(self, call: ReadCall) -> ReadResult:
        text = self.files.get(call.target)
        if text is None:
            raise SariError(ErrorCode.NOT_FOUND, f"{call.target} does not exist.", "Search first.")
        lines = text.splitlines(keepends=True)
        if call.mode == "snippet":
            start = call.start_line or 1
            end = call.end_line or start
        else:
            start = call.skipped_lines + 1
            end = len(lines) if call.limit is None else min(len(lines), start + call.limit - 1)
        body = "".join(lines[start - 1:end])
        return ReadResult(path=call.target, text=body, start_line=start, end_line=end,
                          total_lines=len(lines),
                          content_hash=hashlib.sha1(text.encode()).hexdigest(),
                          location=Location(file=call.target, line=start, end_line=end))

    def search(self, call: SearchCall) -> SearchResult:
        matches = []
        for path in sorted(self.files):
            for number, line in enumerate(self.files[path].splitlines(), 1):
                if call.query in line:
                    matches.append(SearchMatch(path=path, line=number, snippet=line.strip(),
                                               score=1.0))
        return SearchResult(query=call.query, kind=call.kind, matches=matches[: call.limit],
                            total=len(matches), truncated=len(matches) > call.limit)

    def plan_mutation(self, call: MutationCall) -> list[FileChange]:
        old = self.files.get(call.path)
        if call.tool == "write":
            new = call.content
        else:
            wanted = call.old_string or ""
            if old is None or wanted not in old:
                raise SariError(ErrorCode.EDIT_NO_MATCH, "old_string not found.", "Read first.")
            new = old.replace(wanted, call.new_string or "")
        return [FileChange(path=call.path, abs_path=str(self.roots[0] / call.path),
                           old_text=old, new_text=new)]

    def apply_mutation(self, changes: list[FileChange]) -> None:
        for change in changes:
            if change.new_text is None:
                self.files.pop(change.path, None)
            else:
                self.files[change.path] = change.new_text

    def poll_changes(self) -> list[FileChange]:
        changes, self.external = self.external, []
        return changes

    def close(self) -> None:
        pass
