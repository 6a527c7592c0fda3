"""Sari: a policy layer for the tools LLM coding agents call."""

from sari_core.kernel import Kernel
from sari_core.models import NextCall
from sari_core.plugin_manager import hookimpl
from sari_core.reasons import ReasonCode, ReasonCodeSpec
from sari_core.settings import SettingsSpec
from sari_core.tools import ToolSpec
from sari_core.verdicts import Verdict

__all__ = ["Kernel", "NextCall", "ReasonCode", "ReasonCodeSpec", "SettingsSpec", "ToolSpec",
           "Verdict", "hookimpl"]
__version__ = "0.1.0"
