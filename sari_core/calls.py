"""One tool call in flight: its execution id, timing and session, and how it ends.

Every ``Kernel.execute_*`` method opens a :class:`Call`, and leaves through
exactly one of :meth:`Call.serve`, :meth:`Call.refuse` or :meth:`Call.block`;
each of them announces the call through ``on_call_complete`` and the analytics
queue, so refusals are recorded exactly like served calls.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sari_core import responses
from sari_core.errors import ErrorCode, SariError
from sari_core.models import CallRecord, ReadCall
from sari_core.reasons import ReasonCode
from sari_core.sessions import Session, SessionIdRequired
from sari_core.verdicts import FoldedVerdict

if TYPE_CHECKING:
    from sari_core.kernel import Kernel

_NO_METRICS: dict[str, Any] = {}


class Call:
    """A call of ``tool`` with raw ``args``; ``kind`` names it in responses (mode/query/tool, target)."""

    __slots__ = ("args", "execution_id", "kernel", "kind", "refusal", "session", "started",
                 "tool")

    def __init__(self, kernel: Kernel, tool: str, args: Mapping[str, Any],
                 kind: dict[str, Any]) -> None:
        self.kernel = kernel
        self.tool = tool
        self.args = args
        self.kind = kind
        self.started = time.perf_counter()
        self.execution_id = kernel.new_execution_id()
        self.session: Session | None = None
        self.refusal: dict[str, Any] = {}

    def open_session(self, connection_id: str | None) -> Session | None:
        """Resolve the session, or None with :attr:`refusal` set (strict mode, no ``session_id``)."""
        try:
            self.session = self.kernel.session(self.args.get("session_id"), connection_id)
        except SessionIdRequired:
            folded = FoldedVerdict(reason_codes=[ReasonCode.SESSION_ID_REQUIRED.value])
            error = SariError(ErrorCode.SESSION_ID_REQUIRED,
                              "session_id is required: this server runs in strict session mode.",
                              "Pass a stable session_id argument with every call.")
            self.refusal = self.refuse(error, folded)
        return self.session

    def metrics(self) -> dict[str, Any]:
        return self.kernel.metrics_snapshot(self.session) if self.session else _NO_METRICS

    def refuse(self, exc: SariError, folded: FoldedVerdict | None = None) -> dict[str, Any]:
        """End with an engine or argument refusal; policy verdicts so far stay attached."""
        merged = (folded or FoldedVerdict()).merge(
            FoldedVerdict(next_calls=list(exc.next_calls)), self.kernel.reasons)
        response = responses.error_response(self.kind, exc.code, exc.message, exc.hint, merged,
                                            self.metrics(), self.execution_id)
        if exc.details:
            response["error"]["details"] = exc.details
        return self.serve(response)

    def block(self, folded: FoldedVerdict) -> dict[str, Any]:
        """End with a policy's refusal (the fold's winning block)."""
        response = responses.error_response(
            self.kind, folded.error_code or "BLOCKED", folded.message, folded.hint, folded,
            self.metrics(), self.execution_id)
        return self.serve(response)

    def serve(self, response: dict[str, Any]) -> dict[str, Any]:
        """Announce the finished call (``on_call_complete``, analytics) and return its response."""
        session = self.session
        if session is None:
            return response
        error = response.get("error")
        error_code = error["code"] if error else None
        reason_codes = response["meta"]["stabilization"]["reason_codes"]
        kernel = self.kernel
        if kernel.pm.ordered_impls("on_call_complete"):
            # Built from values the kernel made itself: no need to re-validate them.
            record = CallRecord.trusted(
                execution_id=self.execution_id, tool=self.tool, session_key=session.key,
                arguments=dict(self.args), ok=response["ok"], target=response.get("target"),
                error_code=error_code, reason_codes=list(reason_codes),
                duration_ms=(time.perf_counter() - self.started) * 1000.0,
                timestamp=time.time(), response=response,
            )
            kernel.announce("on_call_complete", {"record": record, "session": session})
        kernel.analytics.emit(self.tool, session.key, ok=response["ok"],
                              reason_codes=reason_codes, error_code=error_code)
        return response


def narrowed(call: ReadCall, narrow: dict[str, int]) -> ReadCall:
    """Apply folded ``narrow`` values: a field is clamped to the smaller of request and policy."""
    update = {}
    for key, value in narrow.items():
        if key in ReadCall.model_fields:
            current = getattr(call, key)
            update[key] = value if current is None else min(current, value)
    return call.model_copy(update=update)
