"""pygls's language client, set up for validation: what it declares, answers and reports.

The client declares version-tagged ``publishDiagnostics`` and pull diagnostics
(``textDocument/diagnostic``, registered statically or dynamically by the server);
it answers the requests servers send a client (configuration, workspace folders,
capability registration, refreshes) and drops their log and progress chatter.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.protocol import default_converter

from sari_lspgate.diagnostics import SEVERITY_BY_LSP_NUMBER, Diagnostic

CLIENT_NAME = "sari-lspgate"
CLIENT_VERSION = "0.1.0"
# Notifications some servers send that a validating client has no use for.
IGNORED_NOTIFICATIONS = (lsp.WINDOW_LOG_MESSAGE, lsp.WINDOW_SHOW_MESSAGE, lsp.PROGRESS,
                         lsp.TELEMETRY_EVENT, lsp.LOG_TRACE, "pyright/beginProgress",
                         "pyright/reportProgress", "pyright/endProgress")
# Requests answered with an empty result.
NULL_REQUESTS = (lsp.CLIENT_UNREGISTER_CAPABILITY, lsp.WINDOW_WORK_DONE_PROGRESS_CREATE,
                 lsp.WINDOW_SHOW_MESSAGE_REQUEST, lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
                 lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH, lsp.WORKSPACE_INLAY_HINT_REFRESH,
                 lsp.WORKSPACE_CODE_LENS_REFRESH)
# pygls releases this client was written for (major, minor): it reads the server process
# pygls started from the client's own attribute, which pygls names nowhere publicly.
PYGLS_WRITTEN_FOR = ((2, 0), (2, 1))

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def pygls_checked() -> bool:
    """Whether the installed pygls is one this client was written for; said once in the log
    when it is not (the client still runs: a moved attribute shows as no stderr drained)."""
    found = version("pygls")
    major_minor = tuple(int(part) for part in found.split(".")[:2] if part.isdigit())
    if major_minor in PYGLS_WRITTEN_FOR:
        return True
    written = " and ".join(f"{major}.{minor}" for major, minor in PYGLS_WRITTEN_FOR)
    log.warning("sari-lspgate: pygls %s found, the client was written for %s; if language "
                "servers misbehave, install one of those", found, written)
    return False


class MessageBodiesAtDebug(logging.Filter):
    """pygls logs every message it sends or gets answered at INFO, whole: a didOpen or
    didChange carries a file's full text, secrets and all, and the server log keeps INFO by
    default. Those records are kept for DEBUG (a handler at INFO then drops them)."""

    _BODIES = ("Sending data", "Client response")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO and str(record.msg).startswith(self._BODIES):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


_PYGLS_MESSAGES = logging.getLogger("pygls.protocol.json_rpc")
if not any(isinstance(f, MessageBodiesAtDebug) for f in _PYGLS_MESSAGES.filters):
    _PYGLS_MESSAGES.addFilter(MessageBodiesAtDebug())


def lsp_converter() -> Any:
    """pygls's converter plus a structure hook lsprotocol lacks for recent cattrs.

    ``NotebookDocumentFilterWithCells.notebook`` is ``Optional[Union[str, filter...]]``;
    lsprotocol registers a hook for the union without None only, so structuring the
    capabilities of any server that advertises notebook sync (ruff does) fails without it.
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


def client_capabilities() -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        workspace=lsp.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
        text_document=lsp.TextDocumentClientCapabilities(
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
            diagnostic=lsp.DiagnosticClientCapabilities(dynamic_registration=True)),
    )


class ValidatingClient(LanguageClient):
    """A pygls client whose server-sent messages go to the given callbacks.

    :param root: the workspace folder announced to the server.
    :param settings: answers to ``workspace/configuration``, by section.
    :param on_publish: ``publishDiagnostics`` notifications.
    :param on_pull_registered: the server registered ``textDocument/diagnostic``.
    :param on_exit: the server process exited (with its return code).
    """

    def __init__(self, root: Path, settings: dict[str, Any],
                 on_publish: Callable[[lsp.PublishDiagnosticsParams], None],
                 on_pull_registered: Callable[[], None],
                 on_exit: Callable[[ValidatingClient, int | None], None]) -> None:
        super().__init__(CLIENT_NAME, CLIENT_VERSION, converter_factory=lsp_converter)
        self._on_exit = on_exit
        folder = lsp.WorkspaceFolder(uri=root.as_uri(), name=root.name)

        @self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: lsp.PublishDiagnosticsParams) -> None:
            on_publish(params)

        @self.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def register(params: lsp.RegistrationParams) -> None:
            if any(r.method == lsp.TEXT_DOCUMENT_DIAGNOSTIC for r in params.registrations):
                on_pull_registered()

        @self.feature(lsp.WORKSPACE_CONFIGURATION)
        def configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [settings.get(item.section or "") for item in params.items]

        @self.feature(lsp.WORKSPACE_WORKSPACE_FOLDERS)
        def folders(_: Any) -> list[lsp.WorkspaceFolder]:
            return [folder]

        for method in NULL_REQUESTS + IGNORED_NOTIFICATIONS:
            self.feature(method)(_nothing)

    @property
    def server_process(self) -> asyncio.subprocess.Process | None:
        """The server process :meth:`start_io` started (pygls keeps it as its own
        ``_server``; :func:`pygls_checked` says when pygls is not a release this reads)."""
        pygls_checked()
        return getattr(self, "_server", None)

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self._on_exit(self, server.returncode)


def _nothing(*_: Any) -> None:
    return None


def convert(item: lsp.Diagnostic, path: str, source: str) -> Diagnostic:
    """An LSP diagnostic as the gate's value (1-based lines; no severity means error)."""
    severity = SEVERITY_BY_LSP_NUMBER.get(int(item.severity) if item.severity else 1, "error")
    code = "" if item.code is None else str(item.code)
    return Diagnostic(path=path, line=item.range.start.line + 1,
                      column=item.range.start.character + 1, severity=severity, source=source,
                      code=code, message=item.message)
