"""Exact navigation from the warm language servers: references, callers, implementations.

A name is resolved with ``workspace/symbol`` to the definitions spelled that way; each
definition is then asked for ``textDocument/references`` (without the declaration),
``callHierarchy/incomingCalls`` or ``textDocument/implementation``. Hits get the
definition enclosing them from ``textDocument/documentSymbol``. Only servers that are
running are asked (navigation never waits for a server to start), and any failure
answers None: the index's name-based answer is then served.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from sari_core.engine.names import matches
from sari_core.models import SearchCall, SearchMatch, SearchResult
from sari_lspgate.lsp_client import ValidatingClient
from sari_lspgate.lsp_server import LanguageServer
from sari_lspgate.validators import ValidatorUnavailable
from sari_lspgate.validators import matches as path_matches

log = logging.getLogger(__name__)

REQUEST_TIMEOUT_SECONDS = 10.0
MAX_DEFINITIONS = 50
SNIPPET_CHARS = 160
MAX_OUTLINES = 512  # files whose document symbols are kept between searches
Outlines = dict[tuple[str, Path, int], list[tuple[str, int, int]]]
_SCOPE_KINDS = frozenset({
    lsp.SymbolKind.Class, lsp.SymbolKind.Method, lsp.SymbolKind.Function,
    lsp.SymbolKind.Constructor, lsp.SymbolKind.Interface, lsp.SymbolKind.Struct,
    lsp.SymbolKind.Enum, lsp.SymbolKind.Module, lsp.SymbolKind.Namespace})
_LABEL = {"references": "reference", "callers": "call", "implementations": "implementation"}


@dataclass(frozen=True)
class Hit:
    path: Path
    line: int  # 1-based
    end_line: int
    scope: str | None = None
    scope_lines: tuple[int, int] | None = None


def _path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def _provides(server: LanguageServer, kind: str) -> bool:
    caps = server.capabilities
    if caps is None:
        return False
    need = {"references": caps.references_provider,
            "callers": caps.call_hierarchy_provider,
            "implementations": caps.implementation_provider}[kind]
    return bool(need)


class ExactNavigator:
    """Answers one navigation search with the running servers that can."""

    def __init__(self, servers: Sequence[tuple[LanguageServer, list[str]]],
                 display: Any, outlines: Outlines) -> None:
        self.servers = servers  # (server, the path patterns it serves)
        self.display = display  # abs path -> the workspace-relative path shown
        self.outlines = outlines  # documentSymbol answers by (server, file, mtime), shared

    async def answer(self, call: SearchCall) -> SearchResult | None:
        name = call.query.strip().rsplit(".", 1)[-1].rsplit("::", 1)[-1].strip("()")
        for server, patterns in self.servers:
            if not server.running or not _provides(server, call.kind):
                continue
            try:
                hits = await self._hits(server, patterns, name, call)
            except (ValidatorUnavailable, TimeoutError, OSError) as exc:
                log.info("exact navigation through %s failed: %s", server.name, exc)
                continue
            if hits is None:
                continue  # the server knows no definition of that name
            return self._result(call, hits, server.name)
        return None

    async def _hits(self, server: LanguageServer, patterns: list[str], name: str,
                    call: SearchCall) -> list[Hit] | None:
        symbols = await server.request(
            lambda client: client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=name)),
            REQUEST_TIMEOUT_SECONDS) or []
        definitions = []
        for symbol in symbols:
            location = symbol.location
            if not isinstance(location, lsp.Location) or symbol.kind not in _SCOPE_KINDS:
                continue  # variables and parameters are not what navigation asks about
            same = symbol.name == name if call.match is None else \
                matches(name, symbol.name, call.match)
            path = _path(location.uri)
            if same and path_matches(self.display(path), patterns):
                definitions.append((location.uri, location.range.start, symbol.name))
        if not definitions:
            return None
        hits: dict[tuple[Path, int], Hit] = {}
        asked: set[tuple[Path, int]] = set()
        for uri, start, spelled in definitions[:MAX_DEFINITIONS]:
            position = _name_position(_path(uri), start, spelled)
            asked.add((_path(uri), position.line + 1))
            document = lsp.TextDocumentIdentifier(uri=uri)
            for hit in await self._ask(server, call.kind, document, position):
                hits.setdefault((hit.path, hit.line), hit)
        if call.kind == "implementations":  # a definition does not implement itself
            hits = {key: hit for key, hit in hits.items() if key not in asked}
        return await self._with_scopes(server, list(hits.values()))

    async def _ask(self, server: LanguageServer, kind: str, document: lsp.TextDocumentIdentifier,
                   position: lsp.Position) -> list[Hit]:
        if kind == "references":
            params = lsp.ReferenceParams(text_document=document, position=position,
                                         context=lsp.ReferenceContext(include_declaration=False))
            found = await server.request(
                lambda client: client.text_document_references_async(params),
                REQUEST_TIMEOUT_SECONDS) or []
            return [_location_hit(location) for location in found]
        if kind == "implementations":
            impl = lsp.ImplementationParams(text_document=document, position=position)
            found = await server.request(
                lambda client: client.text_document_implementation_async(impl),
                REQUEST_TIMEOUT_SECONDS) or []
            locations = found if isinstance(found, list) else [found]
            return [_location_hit(item) for item in locations if isinstance(item, lsp.Location)]
        return await server.request(
            lambda client: _incoming_calls(client, document, position), REQUEST_TIMEOUT_SECONDS)

    async def _with_scopes(self, server: LanguageServer, hits: list[Hit]) -> list[Hit]:
        out = []
        for hit in hits:
            try:
                key = (server.name, hit.path, hit.path.stat().st_mtime_ns)
            except OSError:
                key = (server.name, hit.path, 0)
            if key not in self.outlines:
                document = lsp.DocumentSymbolParams(
                    text_document=lsp.TextDocumentIdentifier(uri=hit.path.as_uri()))
                found = await server.request(
                    lambda client, d=document: client.text_document_document_symbol_async(d),
                    REQUEST_TIMEOUT_SECONDS) or []
                if len(self.outlines) >= MAX_OUTLINES:
                    self.outlines.pop(next(iter(self.outlines)))
                self.outlines[key] = _flatten(found)
            inside = [scope for scope in self.outlines[key] if scope[1] <= hit.line <= scope[2]]
            if inside:
                scope = min(inside, key=lambda s: s[2] - s[1])
                hit = Hit(hit.path, hit.line, hit.end_line, scope[0], (scope[1], scope[2]))
            out.append(hit)
        return out

    def _result(self, call: SearchCall, hits: list[Hit], server: str) -> SearchResult:
        ordered = sorted(hits, key=lambda hit: (self.display(hit.path), hit.line))
        shown = ordered[:call.limit]
        matches_out = []
        texts: dict[Path, list[str]] = {}
        for hit in shown:
            snippet = _line(texts, hit.path, hit.line)
            if call.kind == "implementations" and hit.scope_lines is not None:
                # the hit is the implementing definition: point at all of it
                matches_out.append(SearchMatch(
                    path=self.display(hit.path), line=hit.scope_lines[0],
                    end_line=hit.scope_lines[1], kind=_LABEL[call.kind], snippet=snippet,
                    symbol=hit.scope))
                continue
            matches_out.append(SearchMatch(
                path=self.display(hit.path), line=hit.line, end_line=hit.end_line,
                kind=_LABEL[call.kind], snippet=snippet, scope=hit.scope,
                scope_lines=list(hit.scope_lines) if hit.scope_lines else None))
        return SearchResult(query=call.query, kind=call.kind, matches=matches_out,
                            total=len(ordered), truncated=len(ordered) > len(shown),
                            extra={"total_unit": "locations", "precision": f"exact:{server}"})


async def _incoming_calls(client: ValidatingClient, document: lsp.TextDocumentIdentifier,
                          position: lsp.Position) -> list[Hit]:
    items = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(text_document=document, position=position)) or []
    hits = []
    for item in items:
        calls = await client.call_hierarchy_incoming_calls_async(
            lsp.CallHierarchyIncomingCallsParams(item=item)) or []
        for incoming in calls:
            caller = incoming.from_
            scope = (caller.range.start.line + 1, caller.range.end.line + 1)
            for where in incoming.from_ranges:
                line = where.start.line + 1
                hits.append(Hit(_path(caller.uri), line, line, caller.name, scope))
    return hits


def _location_hit(location: lsp.Location) -> Hit:
    line = location.range.start.line + 1
    return Hit(_path(location.uri), line, line)


def _flatten(symbols: list[Any], parent: str = "") -> list[tuple[str, int, int]]:
    """(qualified name, first line, last line) of every symbol of a documentSymbol answer."""
    out = []
    for symbol in symbols:
        span = symbol.range if isinstance(symbol, lsp.DocumentSymbol) else symbol.location.range
        if symbol.kind not in _SCOPE_KINDS:
            continue  # parameters and variables enclose nothing
        name = f"{parent}.{symbol.name}" if parent else symbol.name
        out.append((name, span.start.line + 1, span.end.line + 1))
        if isinstance(symbol, lsp.DocumentSymbol) and symbol.children:
            out.extend(_flatten(symbol.children, name))
    return out


def _name_position(path: Path, start: lsp.Position, name: str) -> lsp.Position:
    """Where ``name`` is spelled at or after ``start`` (a symbol's range may start earlier)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return start
    for number in range(start.line, min(start.line + 20, len(lines))):
        column = lines[number].find(name, start.character if number == start.line else 0)
        if column != -1:
            return lsp.Position(line=number, character=column)
    return start


def _line(texts: dict[Path, list[str]], path: Path, line: int) -> str:
    if path not in texts:
        try:
            texts[path] = path.read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            texts[path] = []
    lines = texts[path]
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text[:SNIPPET_CHARS] + ("…" if len(text) > SNIPPET_CHARS else "")
