"""The navigation bench's ground truth: what basedpyright says references and calls a name,
asked at each of its definitions (``textDocument/references`` without the declaration,
``callHierarchy/incomingCalls``).

A name with many definitions (tornado's ``get``: one a request handler) takes the server
minutes, so the truth is kept: one JSON file per sdist and name, each definition's answer
written as soon as it is known (a run cut short resumes where it stopped), and a name whose
truth is not complete within its time budget is reported as skipped, not half scored.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from sari_lspgate.lsp_server import LanguageServer

Pair = tuple[str, int]
Truth = dict[tuple[str, int], dict[str, set[Pair]]]
REQUEST_SECONDS = 60.0


class TruthCache:
    """The server's answers per definition of a name, kept in ``folder`` (one file a name).

    ``folder`` None keeps nothing (the smoke run)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def _file(self, name: str) -> Path | None:
        if self.folder is None:
            return None
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        return self.folder / f"{safe}.json"

    def load(self, name: str) -> Truth:
        file = self._file(name)
        if file is None or not file.exists():
            return {}
        stored = json.loads(file.read_text(encoding="utf-8"))
        if stored.get("name") != name:
            return {}
        truth: Truth = {}
        for key, kinds in stored["definitions"].items():
            path, _, line = key.rpartition(":")
            truth[(path, int(line))] = {kind: {(str(p), int(n)) for p, n in pairs}
                                        for kind, pairs in kinds.items()}
        return truth

    def save(self, name: str, truth: Truth) -> None:
        file = self._file(name)
        if file is None:
            return
        file.parent.mkdir(parents=True, exist_ok=True)
        stored = {"name": name, "definitions": {
            f"{path}:{line}": {kind: sorted(pairs) for kind, pairs in kinds.items()}
            for (path, line), kinds in truth.items()}}
        partial = file.with_suffix(".tmp")
        partial.write_text(json.dumps(stored), encoding="utf-8")
        partial.replace(file)


async def ground_truth(server: LanguageServer, root: Path, definitions: list[tuple[str, int]],
                       name: str, kinds: tuple[str, ...], cache: TruthCache | None = None,
                       budget_seconds: float | None = None) -> Truth | None:
    """Per definition of ``name``: what the server says references (``references`` in
    ``kinds``) and calls (``callers``) it, as (file, line) pairs. Answers already in
    ``cache`` are reused and new ones written to it one definition at a time; None when
    the definitions still to ask were not all answered within ``budget_seconds``."""
    cache = cache or TruthCache(None)
    known = cache.load(name)
    deadline = None if budget_seconds is None else time.monotonic() + budget_seconds

    def remaining() -> float:
        return REQUEST_SECONDS if deadline is None else min(
            REQUEST_SECONDS, deadline - time.monotonic())

    truth: Truth = {}
    for path, line in definitions:
        kept = known.get((path, line), {})
        if all(kind in kept for kind in kinds):
            truth[(path, line)] = {kind: kept[kind] for kind in kinds}
            continue
        if remaining() <= 0:
            return None
        try:
            mine = await _at_definition(server, root, path, line, name, kinds, remaining)
        except TimeoutError:
            return None
        truth[(path, line)] = mine
        known[(path, line)] = {**kept, **mine}
        cache.save(name, known)
    return truth


async def _at_definition(server: LanguageServer, root: Path, path: str, line: int, name: str,
                         kinds: tuple[str, ...], remaining: Callable[[], float]
                         ) -> dict[str, set[Pair]]:
    mine: dict[str, set[Pair]] = {kind: set() for kind in kinds}
    text = (root / path).read_text(encoding="utf-8").split("\n")
    for number in range(line - 1, min(line + 20, len(text))):
        column = re.search(rf"\b{re.escape(name)}\b", text[number])
        if column:
            break
    else:
        return mine

    def seconds() -> float:
        left = remaining()
        if left <= 0:
            raise TimeoutError
        return left

    document = lsp.TextDocumentIdentifier(uri=(root / path).as_uri())
    position = lsp.Position(line=number, character=column.start())
    params = lsp.ReferenceParams(text_document=document, position=position,
                                 context=lsp.ReferenceContext(include_declaration=False))
    if "references" in kinds:
        refs = await server.request(
            lambda c, p=params: c.text_document_references_async(p), seconds()) or []
        mine["references"] |= {(relative(root, ref.uri), ref.range.start.line + 1)
                               for ref in refs}
    if "callers" not in kinds:
        return mine
    prepare = lsp.CallHierarchyPrepareParams(text_document=document, position=position)
    items = await server.request(
        lambda c, p=prepare: c.text_document_prepare_call_hierarchy_async(p), seconds()) or []
    for item in items:
        incoming = lsp.CallHierarchyIncomingCallsParams(item=item)
        calls = await server.request(
            lambda c, p=incoming: c.call_hierarchy_incoming_calls_async(p), seconds()) or []
        mine["callers"] |= {(relative(root, call.from_.uri), where.start.line + 1)
                            for call in calls for where in call.from_ranges}
    return mine


def relative(root: Path, uri: str) -> str:
    return Path(unquote(urlparse(uri).path)).relative_to(root).as_posix()
