"""The navigation bench's ground truth: what basedpyright says references and calls a name,
asked at each of its definitions (``textDocument/references`` without the declaration,
``callHierarchy/incomingCalls``)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from sari_lspgate.lsp_server import LanguageServer

Pair = tuple[str, int]


async def ground_truth(server: LanguageServer, root: Path, definitions: list[tuple[str, int]],
                       name: str, kinds: tuple[str, ...]
                       ) -> dict[tuple[str, int], dict[str, set[Pair]]]:
    """Per definition of ``name``: what the server says references (``references`` in
    ``kinds``) and calls (``callers``) it, as (file, line) pairs."""
    truth: dict[tuple[str, int], dict[str, set[Pair]]] = {}
    for path, line in definitions:
        mine: dict[str, set[Pair]] = {kind: set() for kind in kinds}
        truth[(path, line)] = mine
        text = (root / path).read_text(encoding="utf-8").split("\n")
        for number in range(line - 1, min(line + 20, len(text))):
            column = re.search(rf"\b{re.escape(name)}\b", text[number])
            if column:
                break
        else:
            continue
        document = lsp.TextDocumentIdentifier(uri=(root / path).as_uri())
        position = lsp.Position(line=number, character=column.start())
        params = lsp.ReferenceParams(text_document=document, position=position,
                                     context=lsp.ReferenceContext(include_declaration=False))
        if "references" in kinds:
            refs = await server.request(
                lambda c, p=params: c.text_document_references_async(p), 60) or []
            mine["references"] |= {(relative(root, ref.uri), ref.range.start.line + 1)
                                   for ref in refs}
        if "callers" not in kinds:
            continue
        prepare = lsp.CallHierarchyPrepareParams(text_document=document, position=position)
        items = await server.request(
            lambda c, p=prepare: c.text_document_prepare_call_hierarchy_async(p), 60) or []
        for item in items:
            incoming = lsp.CallHierarchyIncomingCallsParams(item=item)
            calls = await server.request(
                lambda c, p=incoming: c.call_hierarchy_incoming_calls_async(p), 60) or []
            mine["callers"] |= {(relative(root, call.from_.uri), where.start.line + 1)
                                for call in calls for where in call.from_ranges}
    return truth


def relative(root: Path, uri: str) -> str:
    return Path(unquote(urlparse(uri).path)).relative_to(root).as_posix()
