"""One tool call in flight: its id, timing, session and context, and how it ends.

Every ``Kernel.execute_*`` method runs its body through ``Kernel._run`` with one
:class:`Call`. The body returns the served response, or ends the call early by
raising: a :class:`~sari_core.errors.SariError` (argument or engine refusal) or
:class:`CallBlocked` (a policy's block, from :meth:`Call.block`). Either way the
call leaves through :meth:`Call.serve`, which announces it through
``on_call_complete`` and the analytics queue, so refusals are recorded exactly
like served calls.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from sari_core import responses
from sari_core.arguments import LEGACY_READ_TOOLS
from sari_core.errors import ErrorCode, SariError
from sari_core.kernel.context import CallContext
from sari_core.kernel.identity import SessionIdentity
from sari_core.kernel.reasons import ReasonCode
from sari_core.kernel.sessions import Session, SessionIdRequired
from sari_core.kernel.verdicts import FoldedVerdict
from sari_core.models import CallRecord, NextCall, ReadCall

if TYPE_CHECKING:
    from sari_core.kernel import Kernel

_NO_METRICS: dict[str, Any] = {}
# Refusals no other call of the same tool on the same target gets past.
_REFUSALS_OF_THE_TARGET = frozenset({
    ErrorCode.NOT_FOUND, ErrorCode.NOT_A_FILE, ErrorCode.BINARY_FILE,
    ErrorCode.PATH_OUTSIDE_WORKSPACE, ErrorCode.PROTECTED_PATH, ErrorCode.INVALID_ARGS})
_NO_FOLD = FoldedVerdict()


class CallBlocked(Exception):
    """A policy refused the call; the kernel turns it into the refusal response."""

    def __init__(self, folded: FoldedVerdict) -> None:
        super().__init__(folded.message)
        self.folded = folded


class Call:
    """A call of ``tool`` with raw ``args``; ``kind`` names it in responses (mode/query/tool, target).

    :ivar folded: the policies' decision so far; an argument or engine refusal keeps it.
    """

    __slots__ = ("args", "ctx", "execution_id", "folded", "kernel", "kind", "native",
                 "session", "started", "tool")

    def __init__(self, kernel: Kernel, tool: str, args: Mapping[str, Any],
                 kind: dict[str, Any], execution_id: str, native: str | None = None) -> None:
        self.kernel = kernel
        self.native = native
        self.tool = tool
        self.args = args
        self.kind = kind
        self.started = time.perf_counter()
        self.execution_id = execution_id
        self.session: Session | None = None
        self.ctx: CallContext | None = None
        self.folded = _NO_FOLD

    def open(self, identity: SessionIdentity) -> CallContext:
        """Resolve the session ``identity`` names and open the call's context.

        :raises SariError: ``SESSION_ID_REQUIRED`` in strict mode without ``session_id``.
        """
        try:
            session = self.kernel.session(identity.session_id, identity.connection_id,
                                          scope=identity.scope)
        except SessionIdRequired:
            self.folded = FoldedVerdict(reason_codes=[ReasonCode.SESSION_ID_REQUIRED.value])
            raise SariError(ErrorCode.SESSION_ID_REQUIRED,
                            "session_id is required: this server runs in strict session mode.",
                            "Pass a stable session_id argument with every call.") from None
        self.session = session
        self.ctx = CallContext(self.execution_id, self.tool, session, self.native)
        return self.ctx

    def metrics(self) -> dict[str, Any]:
        return self.kernel.pm.metrics(self.session, self.ctx) if self.session else _NO_METRICS

    def block(self, folded: FoldedVerdict) -> NoReturn:
        """End with a policy's refusal (the fold's winning block)."""
        raise CallBlocked(folded)

    def refused(self, exc: SariError) -> dict[str, Any]:
        """The response to an engine or argument refusal; policy verdicts so far stay attached.

        What the policies proposed before the engine ran assumed the call would be served
        (the next window, the rest of a page): after a refusal about the target itself (it is
        missing, not a file, binary, outside or protected) or its arguments, each of those on
        the same target would fail again for the same reason, so they are dropped, and the
        refusal's own next calls (its fix) lead.
        """
        policies = self.folded
        if exc.code in _REFUSALS_OF_THE_TARGET:
            kept = [call for call in policies.next_calls if not self._same_target(call)]
            if len(kept) < len(policies.next_calls):
                policies = replace(policies, next_calls=kept, suggested_next_action=None)
        merged = FoldedVerdict(next_calls=list(exc.next_calls)).merge(policies,
                                                                      self.kernel.reasons)
        response = responses.error_response(self.kind, exc.code, exc.message, exc.hint, merged,
                                            self.metrics(), self.execution_id)
        if exc.details:
            response["error"]["details"] = exc.details
        return self.serve(response)

    def _same_target(self, call: NextCall) -> bool:
        """Whether ``call`` is a call of this call's tool on its target."""
        family = {"read", *LEGACY_READ_TOOLS} if self.tool in {"read", *LEGACY_READ_TOOLS} \
            else {self.tool}
        target = call.arguments.get("target", call.arguments.get("path"))
        return call.tool in family and target is not None and target == self.kind.get("target")

    def blocked(self, folded: FoldedVerdict) -> dict[str, Any]:
        """The response to a policy's block.

        The next calls other policies proposed for serving the call (a window, the rest of a
        page) would be blocked again on the same target: only the blockers' own are kept there.
        """
        kept = [call for call in folded.next_calls
                if call in folded.blockers_next_calls or not self._same_target(call)]
        if len(kept) < len(folded.next_calls):
            folded = replace(folded, next_calls=kept)
        response = responses.error_response(
            self.kind, folded.error_code or "BLOCKED", folded.message, folded.hint, folded,
            self.metrics(), self.execution_id)
        return self.serve(response)

    def serve(self, response: dict[str, Any]) -> dict[str, Any]:
        """Announce the finished call (``on_call_complete``, analytics) and return its response."""
        fields = self.kernel.fields
        meta = response.get("meta")
        if fields and isinstance(meta, dict) and isinstance(meta.get("stabilization"), dict):
            meta["stabilization"] = fields.apply(meta["stabilization"])
        session, ctx = self.session, self.ctx
        if session is None or ctx is None:
            return response
        error = response.get("error")
        error_code = error["code"] if error else None
        reason_codes = response["meta"]["stabilization"]["reason_codes"]
        kernel = self.kernel
        if kernel.pm.has_impls("on_call_complete"):
            # Built from values the kernel made itself: no need to re-validate them.
            record = CallRecord.trusted(
                execution_id=self.execution_id, tool=self.tool, session_key=session.key,
                arguments=dict(self.args), ok=response["ok"], target=response.get("target"),
                error_code=error_code, reason_codes=list(reason_codes),
                duration_ms=(time.perf_counter() - self.started) * 1000.0,
                timestamp=time.time(), response=response, native=self.native,
            )
            kernel.pm.call_complete(record, session, ctx)
        ctx.scratch.clear()
        kernel.analytics.emit(self.tool, session.key, ok=response["ok"],
                              reason_codes=reason_codes, error_code=error_code)
        return response


def narrowed(call: ReadCall, narrow_to: dict[str, int]) -> ReadCall:
    """Apply folded narrowing: a field is clamped to the smaller of request and policy."""
    update = {}
    for key, value in narrow_to.items():
        if key in ReadCall.model_fields:
            current = getattr(call, key)
            update[key] = value if current is None else min(current, value)
    return call.model_copy(update=update)
