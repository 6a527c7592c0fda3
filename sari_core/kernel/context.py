"""The per-call context every policy hook of one tool call shares.

The kernel opens one :class:`CallContext` when a call arrives and passes the same
object to ``on_read_enter``, ``on_read_exit``, ``on_search_complete``,
``on_mutation`` and finally ``on_call_complete``. A plugin that must link what it
decided at enter with what happens at exit or completion keeps it in
``ctx.scratch`` under its own name, instead of in thread-locals or on itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.kernel.sessions import Session


class CallContext:
    """One tool call as the policies see it.

    :ivar call_id: the call's execution id (``meta.execution_id`` of its response).
    :ivar tool: the tool the client called (``read``, ``search``, ``edit``...).
    :ivar session: the session the call belongs to.
    :ivar native: the client's own tool the call stands for (``claude-code:Read``), when a
        client's hook asks what Sari would do with it; None for a call of Sari's own tools.
        The client runs that tool itself, whatever Sari answers, and a refusal costs the
        agent a turn: a policy may answer such a call otherwise.
    :ivar scratch: call-scoped space, from the first policy hook to ``on_call_complete``;
        key it by plugin name. Dropped when the call completes.
    """

    __slots__ = ("call_id", "native", "scratch", "session", "tool")

    def __init__(self, call_id: str, tool: str, session: Session,
                 native: str | None = None) -> None:
        self.call_id = call_id
        self.tool = tool
        self.session = session
        self.native = native
        self.scratch: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"CallContext(call_id={self.call_id!r}, tool={self.tool!r})"
