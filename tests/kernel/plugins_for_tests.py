"""Small policy plugins used by the kernel tests (registered on fresh kernels only)."""

from __future__ import annotations

from sari_core import NextCall, ReasonCodeSpec, Verdict, hookimpl
from sari_core.models import ReadCall, ReadResult, SearchCall, SearchResult
from sari_core.sessions import Session


class BlockingPolicy:
    name = "test.blocker"

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        return Verdict.block("SEARCH_FIRST_REQUIRED", message="search first",
                             hint="call search", next_calls=(
                                 NextCall(tool="search", arguments={"query": call.target}),))


class WarningPolicy:
    name = "test.warner"

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        return Verdict.warn("LOW_RELEVANCE_OUTSIDE_TOPK", message="This target seems unrelated.")

    @hookimpl
    def on_search_complete(self, call: SearchCall, result: SearchResult, session: Session) -> Verdict:
        return Verdict.warn("PREVIEW_DEGRADED", message="previews trimmed")


class ClampingPolicy:
    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        return Verdict.clamp("BUDGET_SOFT_LIMIT", narrow={"limit": self.limit},
                             budget_state="soft_limit", message=f"clamped to {self.limit}")


class ExtensionCodes:
    """Registers two extension codes and emits them, to pin registry ordering."""

    def __init__(self, name: str, codes: tuple[str, ...]) -> None:
        self.name = name
        self.codes = codes

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec(code, f"test code {code}") for code in self.codes]

    @hookimpl
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> Verdict:
        return Verdict.warn(*self.codes, message=f"{self.name} says {'/'.join(self.codes)}")


class RaisingPolicy:
    name = "test.raiser"

    def __init__(self, fail_closed: bool = False) -> None:
        self.fail_closed = fail_closed

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> None:
        raise RuntimeError("policy bug")


class TrivialPolicy:
    """Implements the read hooks and abstains: the cost of a plugin that does nothing."""

    def __init__(self, name: str) -> None:
        self.name = name

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> None:
        return None

    @hookimpl
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> None:
        return None
