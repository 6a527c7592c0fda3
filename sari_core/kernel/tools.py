"""Tool specs: how plugins add MCP tools (``context_query``, ``context_tiers``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from sari_core.kernel.sessions import Session

ToolHandler = Callable[[BaseModel, "Session"], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool a plugin serves.

    :ivar name: the MCP tool name (unique across plugins).
    :ivar description: what a model reads to choose and fill the tool.
    :ivar input_model: pydantic model of the arguments; its JSON schema is the tool's.
    :ivar handler: ``handler(arguments, session) -> response dict`` in the contract's
        shape (use :mod:`sari_core.responses` to build it; pass any execution id, e.g.
        ``""`` — the kernel stamps the call's id into ``meta.execution_id``).
    :ivar deprecated: kept callable for old clients, not listed unless ``legacy_tools``.
    :ivar audience: ``model`` (listed to the model) or ``client`` (called by the client
        program itself, e.g. to lay out its prompt cache: callable, never listed).
    :ivar title: the human-readable name clients show (default: from ``name``).
    :ivar read_only: the tool changes nothing (clients may call it without asking).
    :ivar unlisted: arguments the tool accepts but its listed schema leaves out: what
        programs pass and a model does not need (every listed field is paid for on every
        turn). ``session_id`` is never listed.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    handler: ToolHandler
    deprecated: bool = False
    audience: Literal["model", "client"] = "model"
    title: str = ""
    read_only: bool = False
    unlisted: frozenset[str] = frozenset()
