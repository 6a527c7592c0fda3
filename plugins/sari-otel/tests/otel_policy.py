"""A small real policy for the telemetry tests: the first read of a session is refused."""

from __future__ import annotations

from sari_core.kernel.manager import hookimpl
from sari_core.kernel.reasons import ReasonCodeSpec
from sari_core.kernel.sessions import Session
from sari_core.kernel.verdicts import Verdict
from sari_core.models import ReadCall

LOOK_FIRST = "GATE_LOOK_FIRST"
SECOND_LOOK = "GATE_SECOND_LOOK"


class FirstReadGate:
    """Refuses a session's first read (search first), warns on the ones after it."""

    name = "gate"

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec(LOOK_FIRST, "The first read of a session is refused.",
                               severity="error", rank=90),
                ReasonCodeSpec(SECOND_LOOK, "A read after the first one.", rank=91)]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        with session.lock:
            seen = session.namespace("gate", lambda: {"reads": 0})
            seen["reads"] += 1
            first = seen["reads"] == 1
        if first:
            return Verdict.block(LOOK_FIRST, message="Search before the first read.",
                                 hint="Run search first.")
        return Verdict.warn(SECOND_LOOK, message="")
