"""Sari: a policy layer for the tools LLM coding agents call.

The names here are the whole plugin-facing surface: what a policy plugin imports,
receives and returns, and the helpers the first-party plugins use. A plugin imports
from ``sari_core`` alone (its tests may add :mod:`sari_core.testing`); every submodule
is the kernel's own and may change between releases. Each name is described on the
"Plugin API" reference page.

Every name is loaded on first use, so ``import sari_core`` (and the pytest plugin that
ships with it) costs nothing until a name is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.arguments import LEGACY_READ_TOOLS, READ_TOOLS
    from sari_core.client_request import ClientRequest, current_client_request
    from sari_core.engine.index.names import MatchMode, matches
    from sari_core.engine.navigation.navigation import Definition, target_name
    from sari_core.engine.search.text_match import glob_spec
    from sari_core.engine_protocol import (
        CountsReferences,
        Engine,
        IndexesDefinitions,
        ListsMatchingFiles,
        NamesFiles,
    )
    from sari_core.errors import ErrorCode, SariError
    from sari_core.kernel import Kernel
    from sari_core.kernel.analytics import AnalyticsEvent, AnalyticsSink
    from sari_core.kernel.commands import Command, DoctorCheck
    from sari_core.kernel.context import CallContext
    from sari_core.kernel.manager import hookimpl
    from sari_core.kernel.plugin import Plugin
    from sari_core.kernel.reasons import ReasonCode, ReasonCodeSpec
    from sari_core.kernel.sessions import Session, canonical_root, workspace_hash
    from sari_core.kernel.settings import SettingsError, SettingsSpec, SettingsStore
    from sari_core.kernel.stabilization import StabilizationField
    from sari_core.kernel.tools import ToolSpec
    from sari_core.kernel.trust import OperatorOnly, Tightens
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
    from sari_core.secrets import SECRET_PATTERNS, SecretPattern, redact_secrets
    from sari_core.targets import names_symbol, normalize_path, root_prefixes, symbol_names, words
    from sari_core.textlines import split_lines

__all__ = [
    "CHARS_PER_TOKEN", "LEGACY_READ_TOOLS", "READ_TOOLS", "AnalyticsEvent", "AnalyticsSink",
    "CallContext", "CallRecord", "ChatFrame", "ClientHookEvent", "ClientHookResult",
    "ClientRequest", "Command", "CompactionContribution", "CompactionEvent", "CountsReferences",
    "Definition", "DoctorCheck", "Engine", "ErrorCode", "FileChange", "FoldedVerdict", "IndexesDefinitions",
    "Kernel", "KernelView", "ListsMatchingFiles", "MatchMode", "MutationEvent", "NamesFiles",
    "NextCall",
    "OperatorOnly", "OutlineRow", "Plugin", "ReadCall", "ReadResult", "ReasonCode", "ReasonCodeSpec", "SariError",
    "SECRET_PATTERNS", "SearchCall", "SearchMatch", "SearchResult", "SecretPattern", "Session",
    "SettingsError", "SettingsSpec",
    "SettingsStore", "StabilizationField", "Tightens", "TierEntry", "ToolSpec", "Verdict",
    "canonical_root",
    "current_client_request", "glob_spec", "hookimpl", "matches", "names_symbol",
    "normalize_path", "open_private", "parse_row", "private_dir", "private_file",
    "redact_secrets",
    "root_prefixes", "split_lines", "state_dir", "symbol_names", "target_name",
    "tool_response", "words", "workspace_hash",
]
__version__ = "0.2.0"

# Public name -> the module it lives in.
_HOMES: dict[str, str] = {
    "AnalyticsEvent": "sari_core.kernel.analytics",
    "AnalyticsSink": "sari_core.kernel.analytics",
    "CallContext": "sari_core.kernel.context",
    "CallRecord": "sari_core.models",
    "canonical_root": "sari_core.kernel.sessions",
    "CHARS_PER_TOKEN": "sari_core.responses",
    "ChatFrame": "sari_core.models",
    "ClientHookEvent": "sari_core.models",
    "ClientHookResult": "sari_core.models",
    "ClientRequest": "sari_core.client_request",
    "Command": "sari_core.kernel.commands",
    "DoctorCheck": "sari_core.kernel.commands",
    "CompactionContribution": "sari_core.models",
    "CompactionEvent": "sari_core.models",
    "CountsReferences": "sari_core.engine_protocol",
    "current_client_request": "sari_core.client_request",
    "Definition": "sari_core.engine.navigation.navigation",
    "Engine": "sari_core.engine_protocol",
    "ErrorCode": "sari_core.errors",
    "FileChange": "sari_core.models",
    "FoldedVerdict": "sari_core.kernel.verdicts",
    "glob_spec": "sari_core.engine.search.text_match",
    "hookimpl": "sari_core.kernel.manager",
    "IndexesDefinitions": "sari_core.engine_protocol",
    "Kernel": "sari_core.kernel",
    "KernelView": "sari_core.kernel.view",
    "LEGACY_READ_TOOLS": "sari_core.arguments",
    "ListsMatchingFiles": "sari_core.engine_protocol",
    "NamesFiles": "sari_core.engine_protocol",
    "matches": "sari_core.engine.index.names",
    "MatchMode": "sari_core.engine.index.names",
    "MutationEvent": "sari_core.models",
    "names_symbol": "sari_core.targets",
    "NextCall": "sari_core.models",
    "redact_secrets": "sari_core.secrets",
    "SECRET_PATTERNS": "sari_core.secrets",
    "SecretPattern": "sari_core.secrets",
    "normalize_path": "sari_core.targets",
    "open_private": "sari_core.locations",
    "OperatorOnly": "sari_core.kernel.trust",
    "OutlineRow": "sari_core.outline_rows",
    "parse_row": "sari_core.outline_rows",
    "Plugin": "sari_core.kernel.plugin",
    "private_dir": "sari_core.locations",
    "private_file": "sari_core.locations",
    "READ_TOOLS": "sari_core.arguments",
    "ReadCall": "sari_core.models",
    "ReadResult": "sari_core.models",
    "ReasonCode": "sari_core.kernel.reasons",
    "ReasonCodeSpec": "sari_core.kernel.reasons",
    "root_prefixes": "sari_core.targets",
    "SariError": "sari_core.errors",
    "SearchCall": "sari_core.models",
    "SearchMatch": "sari_core.models",
    "SearchResult": "sari_core.models",
    "Session": "sari_core.kernel.sessions",
    "SettingsError": "sari_core.kernel.settings",
    "SettingsSpec": "sari_core.kernel.settings",
    "SettingsStore": "sari_core.kernel.settings",
    "split_lines": "sari_core.textlines",
    "StabilizationField": "sari_core.kernel.stabilization",
    "state_dir": "sari_core.locations",
    "symbol_names": "sari_core.targets",
    "target_name": "sari_core.engine.navigation.navigation",
    "TierEntry": "sari_core.models",
    "Tightens": "sari_core.kernel.trust",
    "tool_response": "sari_core.responses",
    "ToolSpec": "sari_core.kernel.tools",
    "Verdict": "sari_core.kernel.verdicts",
    "words": "sari_core.targets",
    "workspace_hash": "sari_core.kernel.sessions",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'sari_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
