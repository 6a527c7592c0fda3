"""Sari: a policy layer for the tools LLM coding agents call.

The names here are the whole plugin-facing surface: what a policy plugin imports,
receives and returns, and the helpers the first-party plugins use. A plugin imports
from ``sari_core`` alone (its tests may add :mod:`sari_core.testing`); every submodule
is the kernel's own and may change between releases. Each name is described on the
"Plugin API" reference page.
"""

from typing import TYPE_CHECKING, Any

from sari_core.arguments import LEGACY_READ_TOOLS, READ_TOOLS
from sari_core.client_request import ClientRequest, current_client_request
from sari_core.engine.names import MatchMode, matches
from sari_core.engine_protocol import (
    CountsReferences,
    Engine,
    IndexesDefinitions,
    ListsMatchingFiles,
)
from sari_core.errors import ErrorCode, SariError
from sari_core.kernel import Kernel
from sari_core.kernel.analytics import AnalyticsEvent, AnalyticsSink
from sari_core.kernel.commands import Command
from sari_core.kernel.context import CallContext
from sari_core.kernel.manager import hookimpl
from sari_core.kernel.plugin import Plugin
from sari_core.kernel.reasons import ReasonCode, ReasonCodeSpec
from sari_core.kernel.sessions import Session, canonical_root, workspace_hash
from sari_core.kernel.settings import SettingsError, SettingsSpec, SettingsStore
from sari_core.kernel.stabilization import StabilizationField
from sari_core.kernel.tools import ToolSpec
from sari_core.kernel.trust import OperatorOnly
from sari_core.kernel.verdicts import FoldedVerdict, Verdict
from sari_core.kernel.view import KernelView
from sari_core.locations import open_private, private_dir, private_file, state_dir
from sari_core.models import (
    CallRecord,
    ChatFrame,
    ClientHookEvent,
    ClientHookResult,
    CompactionContribution,
    CompactionEvent,
    FileChange,
    MutationEvent,
    NextCall,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchMatch,
    SearchResult,
    TierEntry,
)
from sari_core.outline_rows import OutlineRow, parse_row
from sari_core.responses import CHARS_PER_TOKEN, tool_response
from sari_core.targets import names_symbol, normalize_path, root_prefixes, symbol_names, words
from sari_core.textlines import split_lines

if TYPE_CHECKING:
    from sari_core.engine.navigation import Definition, target_name
    from sari_core.engine.text_match import glob_spec

__all__ = [
    "CHARS_PER_TOKEN", "LEGACY_READ_TOOLS", "READ_TOOLS", "AnalyticsEvent", "AnalyticsSink",
    "CallContext", "CallRecord", "ChatFrame", "ClientHookEvent", "ClientHookResult",
    "ClientRequest", "Command", "CompactionContribution", "CompactionEvent", "CountsReferences",
    "Definition", "Engine", "ErrorCode", "FileChange", "FoldedVerdict", "IndexesDefinitions",
    "Kernel", "KernelView", "ListsMatchingFiles", "MatchMode", "MutationEvent", "NextCall",
    "OperatorOnly", "OutlineRow", "Plugin", "ReadCall", "ReadResult", "ReasonCode", "ReasonCodeSpec", "SariError",
    "SearchCall", "SearchMatch", "SearchResult", "Session", "SettingsError", "SettingsSpec",
    "SettingsStore", "StabilizationField", "TierEntry", "ToolSpec", "Verdict", "canonical_root",
    "current_client_request", "glob_spec", "hookimpl", "matches", "names_symbol",
    "normalize_path", "open_private", "parse_row", "private_dir", "private_file",
    "root_prefixes", "split_lines", "state_dir", "symbol_names", "target_name",
    "tool_response", "words", "workspace_hash",
]
__version__ = "0.1.0"

# Names whose modules cost tens of milliseconds to import (the engine's index and glob
# matching): loaded on first use, so a plugin that never needs them never pays.
_LAZY = {
    "Definition": "sari_core.engine.navigation",
    "target_name": "sari_core.engine.navigation",
    "glob_spec": "sari_core.engine.text_match",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sari_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
