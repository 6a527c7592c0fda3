"""Sari: a policy layer for the tools LLM coding agents call.

The names here are the plugin-facing surface: what a policy plugin imports,
receives and returns. Everything else in :mod:`sari_core` is the kernel's own
and may change between releases.
"""

from sari_core.kernel import Kernel
from sari_core.kernel.commands import Command
from sari_core.kernel.context import CallContext
from sari_core.kernel.manager import hookimpl
from sari_core.kernel.reasons import ReasonCode, ReasonCodeSpec
from sari_core.kernel.sessions import Session
from sari_core.kernel.settings import SettingsSpec
from sari_core.kernel.tools import ToolSpec
from sari_core.kernel.verdicts import Verdict
from sari_core.models import (
    CallRecord,
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

__all__ = [
    "CallContext", "CallRecord", "ClientHookEvent", "ClientHookResult", "Command",
    "CompactionContribution", "CompactionEvent", "FileChange", "Kernel", "MutationEvent",
    "NextCall", "ReadCall", "ReadResult", "ReasonCode", "ReasonCodeSpec", "SearchCall",
    "SearchMatch", "SearchResult", "Session", "SettingsSpec", "TierEntry", "ToolSpec",
    "Verdict", "hookimpl",
]
__version__ = "0.1.0"
