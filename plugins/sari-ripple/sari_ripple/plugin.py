"""The ``ripple`` plugin: wires the tracker into the kernel and serves ``context_tiers``.

Files read (``on_read_exit``) or edited (``on_mutation`` after, Sari's edits and
changes seen on disk alike) are the Active set of the session's current round; an
edit demotes the file to Active at once. ``context_tiers`` closes the round with
the client's list of items in context and answers with the tier layout and a
prompt plan. Every tier entry is announced through ``Session.emit_tier_entry``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from sari_core import (
    FoldedVerdict,
    MutationEvent,
    Plugin,
    ReadCall,
    ReadResult,
    Session,
    SettingsSpec,
    ToolSpec,
    hookimpl,
    tool_response,
)
from sari_ripple.config import RippleSettings
from sari_ripple.rounds import OpaqueItem, RippleSession, RoundResult
from sari_ripple.store import state_path
from sari_ripple.workspace_files import WorkspaceFiles

if TYPE_CHECKING:

    from sari_core import KernelView

SECTION = "ripple"
NAMESPACE = "ripple"
TOOL_NAME = "context_tiers"
TOOL_DESCRIPTION = (
    "Close the current round of prompt-cache tiering and get the layout for your next prompt. "
    "Pass every item in your context (file paths, or {id, version, tokens} for non-file items "
    "such as a symbol map or history). Files read or edited through Sari since the last call "
    "are Active; the rest sit in cache tiers L3..L0 by the configured policy (by default the "
    "oldest-changed first, one block per item). The answer lists the "
    "items per tier with N values and token estimates, what moved, and a prompt plan: blocks "
    "from the most stable (L0) to Active with at most four cache_control {'type': 'ephemeral'} "
    "breakpoints. Set include_text to get the rendered text blocks."
)


class ContextItemArg(BaseModel):
    """A non-file context item."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable name of the item, e.g. 'symbol-map' or 'history'.")
    version: str = Field("", description="Changes whenever the item's content changes.")
    tokens: int = Field(0, ge=0, description="The item's size in tokens.")


class ContextTiersArgs(BaseModel):
    """Arguments of ``context_tiers``."""

    model_config = ConfigDict(extra="forbid")

    items: list[str | ContextItemArg] = Field(
        description="Every item in your context now: workspace-relative file paths, or "
                    "objects for non-file items.")
    active: list[str] = Field(
        default_factory=list,
        description="Items you put in play this round yourself (Sari's reads and edits count "
                    "already).")
    include_text: bool = Field(
        False, description="Add plan.content: the blocks as Messages API text blocks with the "
                           "files' text (non-file items appear as placeholders).")
    session_id: str | None = Field(None, description="Your session id.")


class RipplePlugin(Plugin):
    """Prompt-cache tiers: adaptive, gated ripple, ripple or fixed thresholds, per settings."""

    name = "ripple"

    # --- registration -------------------------------------------------------------------

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=RippleSettings)

    @hookimpl
    def sari_register_tools(self) -> list[ToolSpec]:
        return [ToolSpec(name=TOOL_NAME, description=TOOL_DESCRIPTION, audience="client",
                         input_model=ContextTiersArgs, handler=self.context_tiers,
                         title="Plan prompt-cache tiers", read_only=True)]

    # --- session state ------------------------------------------------------------------

    @staticmethod
    def session_state(session: Session) -> RippleSession:
        """The session's tier state, restored from its file on first use."""
        return session.namespace(NAMESPACE, lambda: _open(session))

    # --- gathering the round ------------------------------------------------------------

    @hookimpl
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> None:
        state = self.session_state(session)
        with session.lock:
            state.observe(state.files.item_for(result.path or call.target))

    @hookimpl
    def on_mutation(self, event: MutationEvent, session: Session) -> None:
        if event.phase != "after":
            return
        state = self.session_state(session)
        with session.lock:
            state.wire(session.emit_tier_entry)
            for change in event.changes:
                state.mutated(state.files.item_for(change.path), change.new_text)

    # --- the tool -----------------------------------------------------------------------

    def context_tiers(self, arguments: BaseModel, session: Session) -> dict[str, Any]:
        assert isinstance(arguments, ContextTiersArgs)
        state = self.session_state(session)
        items: list[str] = []
        opaque: dict[str, OpaqueItem] = {}
        for entry in arguments.items:
            if isinstance(entry, ContextItemArg):
                opaque[entry.id] = OpaqueItem(entry.version, entry.tokens)
                items.append(entry.id)
            else:
                items.append(state.files.item_for(entry))
        active = [state.files.item_for(item) if item not in opaque else item
                  for item in arguments.active]
        with session.lock:
            state.wire(session.emit_tier_entry)
            result = state.close_round(items, active, opaque)
            payload = _payload(result, state, arguments.include_text)
        return tool_response(TOOL_NAME, None, payload, FoldedVerdict(),
                                       session.metrics(), "")

    # --- shutdown -----------------------------------------------------------------------

    @hookimpl
    def on_session_end(self, session: Session) -> None:
        state = session.existing_namespace(NAMESPACE)
        if isinstance(state, RippleSession):
            state.save()

    @hookimpl
    def on_kernel_shutdown(self, kernel: KernelView) -> None:
        for session in kernel.live_sessions():
            state = session.existing_namespace(NAMESPACE)
            if isinstance(state, RippleSession):
                state.save()


def _open(session: Session) -> RippleSession:
    settings: RippleSettings = session.settings(SECTION)
    path = state_path(session.workspace_id, session.session_id) if settings.persist else None
    # The engine's symbol index, when it has one (sari_core.engine.Workspace does).
    return RippleSession.open(WorkspaceFiles(session.roots), settings, path,
                              session.reference_counts)


def _payload(result: RoundResult, state: RippleSession, include_text: bool) -> dict[str, Any]:
    tiers = {tier: {"items": [entry.to_json() for entry in entries],
                    "tokens": sum(entry.tokens for entry in entries)}
             for tier, entries in result.layout.items()}
    moved = [{"item": entry.item, "from": entry.previous_tier, "to": entry.tier,
              "n": entry.n_value, "reason": entry.reason} for entry in result.moved]

    def render(item: str) -> str:
        if item in state.opaque:
            return f'<item id="{item}"/>\n'
        return state.files.render(item)

    return {
        "round": result.round,
        "tiers": tiers,
        "moved": moved,
        "dropped": result.dropped,
        "missing": result.missing,
        "policy": state.tracker.policy,
        "token_aware": state.settings.token_aware,
        "plan": result.plan.to_json(render if include_text else None),
    }
