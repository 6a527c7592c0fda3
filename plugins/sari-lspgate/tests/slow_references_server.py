"""A language server that lists every symbol asked for but never answers references in
time: navigation must not wait on it past its budget, and must cancel what it gave up
(the file named by the first argument says "cancelled" once a request was)."""

import asyncio
import sys
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

server = LanguageServer("slow-references", "1")


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
async def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
    try:
        await asyncio.sleep(120)
    except asyncio.CancelledError:  # the client cancelled the request: say so in the file
        Path(sys.argv[1]).write_text("cancelled", encoding="utf-8")
        raise
    return []


@server.feature(lsp.WORKSPACE_SYMBOL)
def symbols(params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    where = lsp.Location(uri=f"{server.workspace.root_uri}/app.py",
                         range=lsp.Range(start=lsp.Position(line=0, character=4),
                                         end=lsp.Position(line=0, character=9)))
    return [lsp.SymbolInformation(name=params.query, kind=lsp.SymbolKind.Function,
                                  location=where)]


server.start_io()
