"""Small policy plugins used by the kernel tests (registered on fresh kernels only)."""

from __future__ import annotations

from sari_core import NextCall, ReasonCodeSpec, Verdict, hookimpl
from sari_core.kernel.reasons import ReasonRegistry
from sari_core.kernel.sessions import Session
from sari_core.kernel.stabilization import StabilizationField
from sari_core.models import ReadCall, ReadResult, SearchCall, SearchResult

# Policy codes as the policy plugins register them: leading ranks, ahead of kernel codes.
POLICY_CODES = {code: ReasonCodeSpec(code, f"test policy code {code}", rank=rank)
                for rank, code in enumerate((
                    "SEARCH_FIRST_REQUIRED", "SEARCH_REF_REQUIRED", "CANDIDATE_REF_REQUIRED",
                    "BUDGET_SOFT_LIMIT", "BUDGET_HARD_LIMIT", "LOW_RELEVANCE_OUTSIDE_TOPK"))}
BUDGET_STATE = StabilizationField("budget_state", default="ok", placement="first",
                                  severity=("ok", "soft_limit", "hard_limit"))


def registry_with_policy_codes() -> ReasonRegistry:
    registry = ReasonRegistry.with_kernel_codes()
    for spec in POLICY_CODES.values():
        registry.register(spec, owner="test")
    return registry


class RegistersCodes:
    """Registers the policy codes a test plugin uses, as a real policy plugin does."""

    uses: tuple[str, ...] = ()

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [POLICY_CODES[code] for code in self.uses]


class BlockingPolicy(RegistersCodes):
    name = "test.blocker"
    uses = ("SEARCH_FIRST_REQUIRED",)

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        return Verdict.block("SEARCH_FIRST_REQUIRED", message="search first",
                             hint="call search", next_calls=(
                                 NextCall(tool="search", arguments={"query": call.target}),))


class WarningPolicy(RegistersCodes):
    name = "test.warner"
    uses = ("LOW_RELEVANCE_OUTSIDE_TOPK",)

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        return Verdict.warn("LOW_RELEVANCE_OUTSIDE_TOPK", message="This target seems unrelated.")

    @hookimpl
    def on_search_complete(self, call: SearchCall, result: SearchResult, session: Session) -> Verdict:
        return Verdict.warn("PREVIEW_DEGRADED", message="previews trimmed")


class ClampingPolicy(RegistersCodes):
    uses = ("BUDGET_SOFT_LIMIT",)

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit

    @hookimpl
    def sari_register_stabilization_fields(self) -> list[StabilizationField]:
        return [BUDGET_STATE]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict:
        return Verdict.narrow("BUDGET_SOFT_LIMIT", to={"limit": self.limit},
                              annotations={"budget_state": "soft_limit"},
                              message=f"clamped to {self.limit}")


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
