"""One warm language server process, spoken to over LSP with pygls's client.

A document is validated by sending the text to check as a new version of it (the
server checks the buffer, not the disk, so the text before an edit can be checked
after it is written), then collecting that version's diagnostics with a bounded wait:

* pull (``textDocument/diagnostic``) when the server offers it — ruff and basedpyright
  do. pyright-based servers hold analysis back for 250 ms after each change ("the user
  is typing") before they publish; a pull request is answered at once.
* push otherwise: the ``textDocument/publishDiagnostics`` notification of exactly that
  document version.

Validations on one server run one at a time. A server that exits is started again by
the next validation (within a restart budget); a validation cut short by the exit is
retried once on the new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp

from sari_lspgate.diagnostics import Diagnostic
from sari_lspgate.lsp_client import ValidatingClient, client_capabilities, convert
from sari_lspgate.validators import ValidatorUnavailable, resolve_executable

log = logging.getLogger(__name__)
T = TypeVar("T")

RESTART_WINDOW_SECONDS = 600.0
SHUTDOWN_TIMEOUT_SECONDS = 5.0
STDERR_TAIL_LINES = 20
# Documents kept open per server; servers re-check open dependents of a changed file.
MAX_OPEN_DOCUMENTS = 32
# Consecutive diagnostics timeouts after which the process is presumed stuck and replaced.
TIMEOUTS_BEFORE_RESTART = 2


class _Waiter:
    """Pushed diagnostics for one (document, version), or why none will come."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self.diagnostics: list[lsp.Diagnostic] = []
        self.failure: ValidatorUnavailable | None = None

    def publish(self, diagnostics: list[lsp.Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        self.done.set()

    def fail(self, failure: ValidatorUnavailable) -> None:
        self.failure = failure
        self.done.set()


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
        self.texts_sent = 0  # documents opened or changed: what the server answers from
        self.workspace_loaded = False  # navigation saw it list the workspace's symbols
        self._client: ValidatingClient | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._alive = False
        self._pull = False
        self._pull_registered: asyncio.Event | None = None
        self._sends_versions = False
        self._versions = itertools.count(1)
        self._waiters: dict[tuple[str, int], _Waiter] = {}
        self._open_documents: OrderedDict[str, int] = OrderedDict()
        self._lock: asyncio.Lock | None = None
        self._restarts: deque[float] = deque()
        self._timeouts_in_a_row = 0
        self._fresh = False
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._background: set[asyncio.Task[Any]] = set()
        self.capabilities: lsp.ServerCapabilities | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._alive else None

    # --- lifecycle -------------------------------------------------------------------

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
        self._pull = False
        self._pull_registered = asyncio.Event()
        self.workspace_loaded = False
        client = ValidatingClient(self.root, self.settings, self._on_publish,
                                  self._on_pull_registered, self._on_exit)
        self.starts += 1
        self._stderr_tail.clear()
        try:
            await client.start_io(executable, *self.command[1:], cwd=str(self.root))
        except OSError as exc:
            raise ValidatorUnavailable(f"{self.name}: cannot start: {exc}",
                                       cause="missing") from exc
        self._client, self._process, self._alive = client, client.server_process, True
        if self._process is not None and self._process.stderr is not None:
            self._spawn(self._drain_stderr(self._process.stderr))
        folder = lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)
        params = lsp.InitializeParams(
            process_id=os.getpid(), root_uri=self.root.as_uri(), workspace_folders=[folder],
            initialization_options=self.initialization_options,
            capabilities=client_capabilities())
        try:
            result = await asyncio.wait_for(client.initialize_async(params),
                                            self.startup_timeout)
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
        self.capabilities = result.capabilities
        self._pull = result.capabilities.diagnostic_provider is not None
        self._fresh = True
        client.initialized(lsp.InitializedParams())
        if self.settings:
            client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings=self.settings))

    def _on_pull_registered(self) -> None:
        self._pull = True
        if self._pull_registered is not None:
            self._pull_registered.set()

    def _on_exit(self, client: ValidatingClient, returncode: int | None) -> None:
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
                await asyncio.wait_for(process.wait(),
                                       SHUTDOWN_TIMEOUT_SECONDS if graceful else 0.1)
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

    def _exclusive(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def warm(self) -> None:
        """Start the server now, so the first validation finds it initialized."""
        async with self._exclusive():
            await self.ensure_started()

    @property
    def generation(self) -> tuple[int, int]:
        """Changes when the process is replaced or sent a text (answers may differ then)."""
        return self.starts, self.texts_sent

    @property
    def running(self) -> bool:
        return self._alive and self._process is not None and self._process.returncode is None

    async def request(self, ask: Callable[[ValidatingClient], Awaitable[T]], timeout: float
                      ) -> T:
        """A read-only request (navigation) to the running server, between validations."""
        async with self._exclusive():
            client = self._client
            if client is None or not self.running:
                raise ValidatorUnavailable(f"{self.name} is not running", cause="crashed")
            return await asyncio.wait_for(ask(client), timeout)

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
            self._timeouts_in_a_row = 0
            if self.settle_seconds:
                await asyncio.sleep(self.settle_seconds)
            return ([convert(item, display_path, self.name) for item in found],
                    restarted and self.starts > 1)

    async def _diagnostics_once(self, abs_path: Path, display_path: str, text: str,
                                language_id: str) -> list[lsp.Diagnostic]:
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
            # A fresh server's first analysis also loads its standard library stubs: it may
            # take the startup allowance on top.
            timeout = self.diagnostics_timeout + (self.startup_timeout if self._fresh else 0.0)
            try:
                if not self._pull:
                    await asyncio.wait_for(self._pushed_or_pull_offered(waiter), timeout)
                if waiter.failure is not None:
                    raise waiter.failure
                if waiter.done.is_set():
                    found = waiter.diagnostics
                else:
                    found = await asyncio.wait_for(self._pull_diagnostics(client, uri), timeout)
            except (asyncio.TimeoutError, TimeoutError) as exc:
                await self._count_timeout()
                raise ValidatorUnavailable(
                    f"{self.name} gave no diagnostics for {display_path} within "
                    f"{timeout:g}s", cause="timeout") from exc
            self._fresh = False
            return found
        finally:
            self._waiters.pop((uri, version), None)

    async def _pushed_or_pull_offered(self, waiter: _Waiter) -> None:
        """Wait for the version's publication — or for the server to register pull
        diagnostics, which pyright-based servers do just after ``initialized``."""
        assert self._pull_registered is not None
        pushed = asyncio.ensure_future(waiter.done.wait())
        offered = asyncio.ensure_future(self._pull_registered.wait())
        try:
            await asyncio.wait({pushed, offered}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            pushed.cancel()
            offered.cancel()

    async def _pull_diagnostics(self, client: ValidatingClient, uri: str
                                ) -> list[lsp.Diagnostic]:
        params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        try:
            report = await client.text_document_diagnostic_async(params)
        except (asyncio.TimeoutError, TimeoutError, asyncio.CancelledError):
            raise
        except Exception as exc:  # the process exited, or the server refused the request
            raise ValidatorUnavailable(f"{self.name}: diagnostics request failed: {exc} "
                                       f"(output: {self._stderr_summary()})",
                                       cause="crashed") from exc
        return list(getattr(report, "items", None) or [])

    async def _count_timeout(self) -> None:
        self._timeouts_in_a_row += 1
        if self._timeouts_in_a_row >= TIMEOUTS_BEFORE_RESTART:
            self._timeouts_in_a_row = 0
            await self._stop_process(graceful=False)

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

    def _send_text(self, client: ValidatingClient, uri: str, version: int, text: str,
                   language_id: str) -> None:
        """Open the document with ``text``, or replace the open document's whole text.

        Documents stay open (re-opening costs pyright more than a change, and makes servers
        publish a clear) up to :data:`MAX_OPEN_DOCUMENTS`; the least recently validated is
        closed. Each holds what the last validation sent: after a write, the disk's content.
        """
        self.texts_sent += 1
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
