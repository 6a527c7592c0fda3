"""One warm language server process, spoken to over LSP with pygls's client.

A document is validated by sending the text to check as a new version of it (the
server checks the buffer, not the disk, so the text before an edit can be checked
after it is written) and waiting — bounded — for ``textDocument/publishDiagnostics``
of exactly that version. Validations on one server run one at a time.

A server that exits is started again by the next validation (within a restart
budget); a validation cut short by the exit is retried once on the new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.protocol import default_converter

from sari_lspgate.diagnostics import SEVERITY_BY_LSP_NUMBER, Diagnostic
from sari_lspgate.validators import ValidatorUnavailable, resolve_executable

log = logging.getLogger(__name__)

RESTART_WINDOW_SECONDS = 600.0
SHUTDOWN_TIMEOUT_SECONDS = 5.0
STDERR_TAIL_LINES = 20
# Documents kept open per server; servers re-check open dependents of a changed file.
MAX_OPEN_DOCUMENTS = 32
# Consecutive diagnostics timeouts after which the process is presumed stuck and replaced.
TIMEOUTS_BEFORE_RESTART = 2


def lsp_converter() -> Any:
    """pygls's converter plus a structure hook lsprotocol lacks for recent cattrs.

    ``NotebookDocumentFilterWithCells.notebook`` is ``Optional[Union[str, filter...]]``;
    lsprotocol registers a hook for the union without None only, so structuring any
    server capabilities that advertise notebook sync (ruff does) fails without this.
    """
    converter = default_converter()
    optional_filter = attrs.fields(lsp.NotebookDocumentFilterWithCells).notebook.type

    def structure_notebook_filter(value: Any, _: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        if "notebookType" in value:
            return converter.structure(value, lsp.NotebookDocumentFilterNotebookType)
        if "scheme" in value:
            return converter.structure(value, lsp.NotebookDocumentFilterScheme)
        return converter.structure(value, lsp.NotebookDocumentFilterPattern)

    converter.register_structure_hook(optional_filter, structure_notebook_filter)
    return converter


class _Waiter:
    """Publications received for one (document, version)."""

    def __init__(self) -> None:
        self.first = asyncio.Event()
        self.diagnostics: list[lsp.Diagnostic] = []
        self.failure: ValidatorUnavailable | None = None

    def publish(self, diagnostics: list[lsp.Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        self.first.set()

    def fail(self, failure: ValidatorUnavailable) -> None:
        self.failure = failure
        self.first.set()


class _Client(LanguageClient):
    def __init__(self, owner: LanguageServer) -> None:
        super().__init__("sari-lspgate", "0.1.0", converter_factory=lsp_converter)
        self.owner = owner

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self.owner._on_exit(self, server.returncode)


class LanguageServer:
    """A language server for one workspace root.

    :param name: validator name (``ruff``, ``basedpyright``, a configured one).
    :param command: the command line starting it on stdio.
    :param root: the workspace root it serves (its working folder and ``rootUri``).
    """

    def __init__(self, name: str, command: list[str], root: Path, *,
                 initialization_options: dict[str, Any] | None = None,
                 settings: dict[str, Any] | None = None, settle_seconds: float = 0.0,
                 startup_timeout: float = 30.0, diagnostics_timeout: float = 15.0,
                 max_restarts: int = 5) -> None:
        self.name = name
        self.command = list(command)
        self.root = root
        self.initialization_options = initialization_options
        self.settings = dict(settings or {})
        self.settle_seconds = settle_seconds
        self.startup_timeout = startup_timeout
        self.diagnostics_timeout = diagnostics_timeout
        self.max_restarts = max_restarts
        self.starts = 0
        self._client: _Client | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._alive = False
        self._versions = itertools.count(1)
        self._waiters: dict[tuple[str, int], _Waiter] = {}
        self._open_documents: OrderedDict[str, int] = OrderedDict()
        self._sends_versions = False
        self._lock: asyncio.Lock | None = None
        self._restarts: deque[float] = deque()
        self._timeouts_in_a_row = 0
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._background: set[asyncio.Task[Any]] = set()

    # --- lifecycle -------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._alive else None

    async def ensure_started(self) -> bool:
        """Start the process if it is not running; True when this call (re)started it."""
        if self._alive and self._process is not None and self._process.returncode is None:
            return False
        if self.starts > 0:
            now = time.monotonic()
            while self._restarts and now - self._restarts[0] > RESTART_WINDOW_SECONDS:
                self._restarts.popleft()
            if len(self._restarts) >= self.max_restarts:
                raise ValidatorUnavailable(
                    f"{self.name} crashed {len(self._restarts) + 1} times within "
                    f"{int(RESTART_WINDOW_SECONDS // 60)} minutes; not restarted again yet "
                    f"(last output: {self._stderr_summary()})", cause="crashed")
            self._restarts.append(now)
        await self._stop_process()
        await self._start()
        return True

    async def _start(self) -> None:
        executable = resolve_executable(self.command[0])
        if executable is None:
            raise ValidatorUnavailable(
                f"{self.name}: executable {self.command[0]!r} not found (install it, or turn "
                f"this validator off)", cause="missing")
        client = _Client(self)
        self._register_handlers(client)
        self.starts += 1
        self._stderr_tail.clear()
        try:
            await client.start_io(executable, *self.command[1:], cwd=str(self.root))
        except OSError as exc:
            raise ValidatorUnavailable(f"{self.name}: cannot start: {exc}", cause="missing") from exc
        self._client = client
        self._process = client._server
        self._alive = True
        if self._process is not None and self._process.stderr is not None:
            self._spawn(self._drain_stderr(self._process.stderr))
        params = lsp.InitializeParams(
            process_id=os.getpid(),
            root_uri=self.root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
            initialization_options=self.initialization_options,
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(configuration=True,
                                                          workspace_folders=True),
                text_document=lsp.TextDocumentClientCapabilities(
                    publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                        version_support=True)),
            ),
        )
        try:
            await asyncio.wait_for(client.initialize_async(params), self.startup_timeout)
        except (asyncio.TimeoutError, TimeoutError) as exc:
            await self._stop_process(graceful=False)
            raise ValidatorUnavailable(
                f"{self.name} did not initialize within {self.startup_timeout:g}s",
                cause="timeout") from exc
        except Exception as exc:  # the process died during the handshake
            await self._stop_process(graceful=False)
            raise ValidatorUnavailable(
                f"{self.name} failed to initialize: {exc or type(exc).__name__} "
                f"(output: {self._stderr_summary()})", cause="crashed") from exc
        client.initialized(lsp.InitializedParams())
        if self.settings:
            client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings=self.settings))

    def _register_handlers(self, client: _Client) -> None:
        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            self._on_publish(params)

        @client.feature(lsp.WORKSPACE_CONFIGURATION)
        def on_configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [self.settings.get(item.section or "") for item in params.items]

        @client.feature(lsp.WORKSPACE_WORKSPACE_FOLDERS)
        def on_folders(_: Any) -> list[lsp.WorkspaceFolder]:
            return [lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)]

        for request in (lsp.CLIENT_REGISTER_CAPABILITY, lsp.CLIENT_UNREGISTER_CAPABILITY,
                        lsp.WINDOW_WORK_DONE_PROGRESS_CREATE, lsp.WINDOW_SHOW_MESSAGE_REQUEST,
                        lsp.WORKSPACE_DIAGNOSTIC_REFRESH, lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
                        lsp.WORKSPACE_INLAY_HINT_REFRESH, lsp.WORKSPACE_CODE_LENS_REFRESH):
            client.feature(request)(_answer_none)
        for notification in (lsp.WINDOW_LOG_MESSAGE, lsp.WINDOW_SHOW_MESSAGE, lsp.PROGRESS,
                             lsp.TELEMETRY_EVENT, lsp.LOG_TRACE):
            client.feature(notification)(_ignore)

    def _on_exit(self, client: _Client, returncode: int | None) -> None:
        if client is not self._client:
            return  # a process this server already replaced
        self._alive = False
        failure = ValidatorUnavailable(
            f"{self.name} exited with code {returncode} (output: {self._stderr_summary()})",
            cause="crashed")
        for waiter in list(self._waiters.values()):
            waiter.fail(failure)

    async def stop(self) -> None:
        """Shut down politely (shutdown request, exit notification), else kill."""
        await self._stop_process(graceful=True)
        for task in list(self._background):
            task.cancel()

    async def _stop_process(self, graceful: bool = True) -> None:
        client, process = self._client, self._process
        self._client, self._process, self._alive = None, None, False
        self._open_documents.clear()
        if client is None or process is None:
            return
        if graceful and process.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_async(None), SHUTDOWN_TIMEOUT_SECONDS)
                client.exit(None)
        if process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), SHUTDOWN_TIMEOUT_SECONDS if graceful else 0.1)
            except (asyncio.TimeoutError, TimeoutError):
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), SHUTDOWN_TIMEOUT_SECONDS)
        # asyncio closes a subprocess transport only once every pipe is closed; stdout and
        # stderr end with the process, stdin is ours to close.
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        # pygls pipes stderr but never reads it: a chatty server would block on a full pipe.
        while True:
            line = await stream.readline()
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                self._stderr_tail.append(text)

    def _stderr_summary(self) -> str:
        return " | ".join(list(self._stderr_tail)[-3:]) or "none"

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- validation ------------------------------------------------------------------

    def _on_publish(self, params: lsp.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            self._sends_versions = True
            waiter = self._waiters.get((params.uri, params.version))
        elif self._sends_versions:
            waiter = None  # a clear on close, or a server-side refresh of an older state
        else:  # a server without version support: the document's latest waiter
            keys = [key for key in self._waiters if key[0] == params.uri]
            waiter = self._waiters[max(keys, key=lambda key: key[1])] if keys else None
        if waiter is not None:
            waiter.publish(list(params.diagnostics))

    def _exclusive(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def warm(self) -> None:
        """Start the server now, so the first validation finds it initialized."""
        async with self._exclusive():
            await self.ensure_started()

    async def diagnostics(self, abs_path: Path, display_path: str, text: str,
                          language_id: str) -> tuple[list[Diagnostic], bool]:
        """Diagnostics of ``text`` as the content of ``abs_path``; and whether the server was
        restarted for them.

        :raises ValidatorUnavailable: missing executable, timeout, crash.
        """
        async with self._exclusive():
            restarted = await self.ensure_started()
            try:
                found = await self._diagnostics_once(abs_path, display_path, text, language_id)
            except ValidatorUnavailable as failure:
                if failure.cause != "crashed":
                    raise
                # The process died under this validation (or just before it): one more try.
                restarted = await self.ensure_started() or restarted
                found = await self._diagnostics_once(abs_path, display_path, text, language_id)
            return found, restarted and self.starts > 1

    async def _diagnostics_once(self, abs_path: Path, display_path: str, text: str,
                                language_id: str) -> list[Diagnostic]:
        client = self._client
        if client is None or not self._alive:
            raise ValidatorUnavailable(f"{self.name} is not running", cause="crashed")
        uri = abs_path.as_uri()
        version = next(self._versions)
        waiter = _Waiter()
        self._waiters[(uri, version)] = waiter
        try:
            try:
                self._send_text(client, uri, version, text, language_id)
            except Exception as exc:  # a closed pipe: the process is gone
                raise ValidatorUnavailable(f"{self.name}: cannot send to the server: {exc}",
                                           cause="crashed") from exc
            try:
                await asyncio.wait_for(waiter.first.wait(), self.diagnostics_timeout)
            except (asyncio.TimeoutError, TimeoutError) as exc:
                self._timeouts_in_a_row += 1
                if self._timeouts_in_a_row >= TIMEOUTS_BEFORE_RESTART:
                    self._timeouts_in_a_row = 0
                    await self._stop_process(graceful=False)
                raise ValidatorUnavailable(
                    f"{self.name} gave no diagnostics for {display_path} within "
                    f"{self.diagnostics_timeout:g}s", cause="timeout") from exc
            if waiter.failure is not None:
                raise waiter.failure
            self._timeouts_in_a_row = 0
            if self.settle_seconds:
                await asyncio.sleep(self.settle_seconds)
            return [_convert(item, display_path, self.name) for item in waiter.diagnostics]
        finally:
            self._waiters.pop((uri, version), None)

    def _send_text(self, client: _Client, uri: str, version: int, text: str,
                   language_id: str) -> None:
        """Open the document with ``text``, or replace the open document's whole text.

        Documents stay open (re-opening makes servers publish a clear that races with the
        next version) up to :data:`MAX_OPEN_DOCUMENTS`; the least recently validated is
        closed. Each one holds what the last validation sent, which after a write is the
        disk's content.
        """
        if uri in self._open_documents:
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
            self._open_documents.move_to_end(uri)
            return
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)))
        self._open_documents[uri] = version
        while len(self._open_documents) > MAX_OPEN_DOCUMENTS:
            oldest, _ = self._open_documents.popitem(last=False)
            client.text_document_did_close(lsp.DidCloseTextDocumentParams(
                lsp.TextDocumentIdentifier(uri=oldest)))


def _answer_none(*_: Any) -> None:
    return None


def _ignore(*_: Any) -> None:
    return None


def _convert(item: lsp.Diagnostic, path: str, source: str) -> Diagnostic:
    severity = SEVERITY_BY_LSP_NUMBER.get(int(item.severity) if item.severity else 1, "error")
    code = "" if item.code is None else str(item.code)
    return Diagnostic(path=path, line=item.range.start.line + 1,
                      column=item.range.start.character + 1, severity=severity, source=source,
                      code=code, message=item.message)
