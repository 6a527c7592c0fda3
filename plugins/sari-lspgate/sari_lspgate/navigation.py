"""Exact navigation from the warm language servers: references, callers, implementations.

The definitions come from Sari's index (it knows each one's file and line): the one
definition a ``Class.method``, ``module.func`` or ``path:line`` query names, or every
definition of a bare name; a workspace without them in its index asks the server
(``workspace/symbol``). Every definition is then asked for ``textDocument/references`` (without the declaration),
``callHierarchy/incomingCalls`` or ``textDocument/implementation``, all at once
(pipelined JSON-RPC: the server works through the queue while answers are read). Hits
get the definition enclosing them from ``textDocument/documentSymbol`` (kept per file
version). Only servers that are running are asked (navigation never waits for a server
to start), and any failure answers None: the index's name-based answer is then served.
An answer is kept and served again while nothing it depends on changed
(:mod:`sari_lspgate.answers`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from sari_core import (
    Definition,
    IndexesDefinitions,
    MatchMode,
    SearchCall,
    SearchMatch,
    SearchResult,
    glob_spec,
    matches,
    target_name,
)
from sari_lspgate.answers import AnswerCache, stamps
from sari_lspgate.lsp_client import ValidatingClient
from sari_lspgate.lsp_server import LanguageServer
from sari_lspgate.validators import ValidatorUnavailable
from sari_lspgate.validators import matches as path_matches

log = logging.getLogger(__name__)

REQUEST_TIMEOUT_SECONDS = 10.0  # per request, as if they were sent one after another
# The longest an agent waits for one exact answer, however many definitions are asked: a
# call hierarchy of a common name over a large tree can take minutes; the index answers then.
ANSWER_BUDGET_SECONDS = 30.0
MAX_DEFINITIONS = 50
SNIPPET_CHARS = 160
MAX_OUTLINES = 512  # files whose document symbols are kept between searches
NAME_LOOKAHEAD_LINES = 20  # a definition's range may start before its name (decorators)
Outlines = dict[tuple[str, Path, int], list[tuple[str, int, int]]]
DefinitionSource = Callable[[str, MatchMode | None], Sequence[Definition]]
Target = tuple[lsp.TextDocumentIdentifier, lsp.Position]
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


@dataclass(frozen=True)
class Answer:
    """What one server said about one question."""

    server: str
    hits: tuple[Hit, ...]


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


def index_definitions(engine: object) -> DefinitionSource | None:
    """The engine's indexed definitions of a name, when it keeps an index (the workspace
    engine does); none while the index is still being built (the server is asked then)."""
    if not isinstance(engine, IndexesDefinitions):
        return None

    def definitions(name: str, match: MatchMode | None) -> Sequence[Definition]:
        if not engine.index_ready:
            return []
        return list(engine.definitions(name, match))

    return definitions


def question(server: LanguageServer, call: SearchCall) -> Hashable:
    """What an answer is kept under: the server, the kind and the symbol as asked
    (``Session.send`` and ``Adapter.send`` are two questions)."""
    return (server.name, str(server.root), call.kind, call.query.strip(), call.match)


class ExactNavigator:
    """Answers one navigation search with the running servers that can.

    :param servers: (server, the path patterns it serves), in order of preference.
    :param display: absolute path -> the workspace-relative path shown.
    :param outlines: documentSymbol answers by (server, file, mtime), shared.
    :param answers: kept answers, shared (see :mod:`sari_lspgate.answers`).
    :param generation: a server -> what must stay equal for its kept answers to hold.
    """

    def __init__(self, servers: Sequence[tuple[LanguageServer, list[str]]],
                 display: Callable[[Path], str], outlines: Outlines,
                 answers: AnswerCache[Answer] | None = None,
                 generation: Callable[[LanguageServer], Hashable] | None = None) -> None:
        self.servers = [(server, patterns) for server, patterns in servers
                        if server.running]
        self.display = display
        self.outlines = outlines
        self.answers = answers
        self.generation = generation or (lambda server: server.generation)

    def kept(self, call: SearchCall) -> SearchResult | None:
        """The answer kept for this question, when it still holds (no server asked)."""
        if self.answers is None:
            return None
        for server, _ in self.servers:
            if not _provides(server, call.kind):
                continue
            found, answer = self.answers.get(question(server, call), self.generation(server))
            if not found or answer is None:
                return None  # this server is asked first: it must answer afresh
            return self._result(call, list(answer.hits), answer.server)
        return None

    async def answer(self, call: SearchCall,
                     definitions: Sequence[Definition] = ()) -> SearchResult | None:
        """Ask the servers in turn; ``definitions`` are the index's for ``call.query``."""
        # a path:line query names its definition's name only through the index's answer
        name = definitions[0].name if definitions else target_name(call.query)
        for server, patterns in self.servers:
            if not server.running or not _provides(server, call.kind):
                continue
            generation = self.generation(server)
            mine = [d for d in definitions if path_matches(self.display(d.path), patterns)]
            before = stamps(d.path for d in mine)
            try:
                hits = await asyncio.wait_for(self._hits(server, patterns, name, call, mine),
                                              ANSWER_BUDGET_SECONDS)
            except (ValidatorUnavailable, asyncio.TimeoutError, TimeoutError, OSError,
                    JsonRpcException) as exc:
                log.info("exact navigation through %s failed: %s", server.name, exc)
                continue
            if hits is None:
                continue  # the server knows no definition of that name (or is loading)
            if self.answers is not None and generation == self.generation(server):
                files = before | stamps({hit.path for hit in hits} - set(before))
                self.answers.put(question(server, call), generation, files,
                                 Answer(server.name, tuple(hits)))
            return self._result(call, hits, server.name)
        return None

    async def _hits(self, server: LanguageServer, patterns: list[str], name: str,
                    call: SearchCall, definitions: Sequence[Definition]) -> list[Hit] | None:
        texts: dict[Path, list[str]] = {}
        targets: list[Target] = []
        for definition in definitions[:MAX_DEFINITIONS]:
            position = _name_position(texts, definition.path, definition.line - 1,
                                      definition.name)
            if position is not None:
                uri = definition.path.as_uri()
                targets.append((lsp.TextDocumentIdentifier(uri=uri), position))
        if targets and not server.workspace_loaded:
            # A server answers before it has listed the workspace's files, with nothing
            # found: until it lists a symbol of the name, the index answers.
            if not await self._lists(server, patterns, definitions[0].name):
                return None
            server.workspace_loaded = True
        if not targets:
            targets = await self._workspace_symbols(server, patterns, name, call.match, texts)
        if not targets:
            return None
        asked = {(_path(document.uri), position.line + 1) for document, position in targets}
        hits: dict[tuple[Path, int], Hit] = {}
        for hit in await _ask_all(server, call.kind, targets):
            hits.setdefault((hit.path, hit.line), hit)
        if call.kind == "implementations":  # a definition does not implement itself
            hits = {key: hit for key, hit in hits.items() if key not in asked}
        return await self._with_scopes(server, list(hits.values()))

    async def _lists(self, server: LanguageServer, patterns: list[str], name: str) -> bool:
        """Whether the server lists a symbol named ``name`` in a file it serves."""
        symbols = await server.request(
            lambda client: client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=name)),
            REQUEST_TIMEOUT_SECONDS) or []
        return any(symbol.name == name and isinstance(symbol.location, lsp.Location)
                   and path_matches(self.display(_path(symbol.location.uri)), patterns)
                   for symbol in symbols)

    async def _workspace_symbols(self, server: LanguageServer, patterns: list[str], name: str,
                                 match: MatchMode | None, texts: dict[Path, list[str]]
                                 ) -> list[Target]:
        symbols = await server.request(
            lambda client: client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=name)),
            REQUEST_TIMEOUT_SECONDS) or []
        targets = []
        for symbol in symbols:
            location = symbol.location
            if not isinstance(location, lsp.Location) or symbol.kind not in _SCOPE_KINDS:
                continue  # variables and parameters are not what navigation asks about
            same = symbol.name == name if match is None else matches(name, symbol.name, match)
            path = _path(location.uri)
            if not same or not path_matches(self.display(path), patterns):
                continue
            position = _name_position(texts, path, location.range.start.line, symbol.name,
                                      location.range.start.character)
            targets.append((lsp.TextDocumentIdentifier(uri=location.uri),
                            position or location.range.start))
        return targets[:MAX_DEFINITIONS]

    async def _with_scopes(self, server: LanguageServer, hits: list[Hit]) -> list[Hit]:
        keys: dict[Path, tuple[str, Path, int]] = {}
        for path in {hit.path for hit in hits}:
            try:
                keys[path] = (server.name, path, path.stat().st_mtime_ns)
            except OSError:
                keys[path] = (server.name, path, 0)
        missing = sorted(path for path, key in keys.items() if key not in self.outlines)
        if missing:
            found = await server.request(
                lambda client: _document_symbols(client, missing),
                REQUEST_TIMEOUT_SECONDS * len(missing))
            for path, symbols in zip(missing, found, strict=True):
                while len(self.outlines) >= MAX_OUTLINES:
                    self.outlines.pop(next(iter(self.outlines)))
                self.outlines[keys[path]] = _flatten(symbols or [])
        out = []
        for hit in hits:
            inside = [scope for scope in self.outlines.get(keys[hit.path], [])
                      if scope[1] <= hit.line <= scope[2]]
            if inside:
                scope = min(inside, key=lambda s: s[2] - s[1])
                hit = Hit(hit.path, hit.line, hit.end_line, scope[0], (scope[1], scope[2]))
            out.append(hit)
        return out

    def _result(self, call: SearchCall, hits: list[Hit], server: str) -> SearchResult:
        ordered = sorted(hits, key=lambda hit: (self.display(hit.path), hit.line))
        if call.path_glob:
            spec = glob_spec(call.path_glob)
            ordered = [hit for hit in ordered if spec.match_file(self.display(hit.path))]
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


async def _ask_all(server: LanguageServer, kind: str, targets: list[Target]) -> list[Hit]:
    """Every target asked at once; the hits in the targets' order."""
    requests = len(targets) * (2 if kind == "callers" else 1)
    return await server.request(lambda client: _pipelined(client, kind, targets),
                                REQUEST_TIMEOUT_SECONDS * requests)


async def _cancellable(client: ValidatingClient, method: str, params: Any) -> Any:
    """One request; given up (past the answer's budget), it is cancelled at the server too,
    which would otherwise go on computing it ahead of every later request."""
    request_id = str(uuid.uuid4())
    try:
        return await client.protocol.send_request_async(method, params, msg_id=request_id)
    except asyncio.CancelledError:
        client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=request_id))
        raise


async def _pipelined(client: ValidatingClient, kind: str, targets: list[Target]) -> list[Hit]:
    if kind == "callers":
        prepared = await asyncio.gather(*(
            _cancellable(client, lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
                         lsp.CallHierarchyPrepareParams(text_document=document,
                                                        position=position))
            for document, position in targets))
        items = [item for answer in prepared for item in answer or []]
        incoming = await asyncio.gather(*(
            _cancellable(client, lsp.CALL_HIERARCHY_INCOMING_CALLS,
                         lsp.CallHierarchyIncomingCallsParams(item=item)) for item in items))
        return [hit for calls in incoming for hit in _call_hits(calls or [])]
    if kind == "references":
        found = await asyncio.gather(*(
            _cancellable(client, lsp.TEXT_DOCUMENT_REFERENCES, lsp.ReferenceParams(
                text_document=document, position=position,
                context=lsp.ReferenceContext(include_declaration=False)))
            for document, position in targets))
        return [_location_hit(location) for answer in found for location in answer or []]
    found_impl = await asyncio.gather(*(
        _cancellable(client, lsp.TEXT_DOCUMENT_IMPLEMENTATION,
                     lsp.ImplementationParams(text_document=document, position=position))
        for document, position in targets))
    hits = []
    for answer in found_impl:
        locations = answer if isinstance(answer, list) else [answer]
        hits += [_location_hit(item) for item in locations if isinstance(item, lsp.Location)]
    return hits


async def _document_symbols(client: ValidatingClient, paths: list[Path]) -> list[Any]:
    return list(await asyncio.gather(*(
        client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
            text_document=lsp.TextDocumentIdentifier(uri=path.as_uri())))
        for path in paths)))


def _call_hits(calls: Sequence[lsp.CallHierarchyIncomingCall]) -> list[Hit]:
    hits = []
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


def _flatten(symbols: Sequence[Any], parent: str = "") -> list[tuple[str, int, int]]:
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


def _name_position(texts: dict[Path, list[str]], path: Path, line: int, name: str,
                   character: int = 0) -> lsp.Position | None:
    """Where ``name`` is spelled as a word at or after (0-based) ``line``/``character``."""
    lines = _lines(texts, path)
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    for number in range(line, min(line + NAME_LOOKAHEAD_LINES, len(lines))):
        found = word.search(lines[number], character if number == line else 0)
        if found:
            return lsp.Position(line=number, character=found.start())
    return None


def _lines(texts: dict[Path, list[str]], path: Path) -> list[str]:
    if path not in texts:
        try:
            texts[path] = path.read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            texts[path] = []
    return texts[path]


def _line(texts: dict[Path, list[str]], path: Path, line: int) -> str:
    lines = _lines(texts, path)
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text[:SNIPPET_CHARS] + ("…" if len(text) > SNIPPET_CHARS else "")
