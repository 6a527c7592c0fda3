"""The sari-relevance plugin: remembers the latest search, flags reads that stray from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from sari_core import (
    Plugin,
    ReadCall,
    ReasonCodeSpec,
    SearchCall,
    SearchResult,
    Session,
    SettingsSpec,
    Verdict,
    hookimpl,
)
from sari_relevance.baseline import Baseline
from sari_relevance.guard import EXCLUDED_PATH, judge
from sari_relevance.reason_codes import REASON_CODES
from sari_relevance.settings import RelevanceSettings

SECTION = "relevance"
NAMESPACE = "relevance"
HARD_ERROR_CODE = "LOW_RELEVANCE"
REASON_RANK = 30


@dataclass
class RelevanceState:
    """Per session: only the latest search (at most ``top_k`` entries), so it stays bounded,
    and the targets already warned about since that search (said once, not on every read)."""

    baseline: Baseline | None = None
    warned: set[str] = field(default_factory=set)


class RelevancePlugin(Plugin):
    """Relevance Guard: warn (or, with ``hard``, refuse) reads outside the latest top-K."""

    name = "relevance"

    @staticmethod
    def _settings(session: Session) -> RelevanceSettings:
        settings: RelevanceSettings = session.settings(SECTION)
        return settings

    @staticmethod
    def _state(session: Session) -> RelevanceState:
        return session.namespace(NAMESPACE, RelevanceState)

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=RelevanceSettings)

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [*REASON_CODES, ReasonCodeSpec(
            code=EXCLUDED_PATH,
            description="The read target is under an excluded path (vendor/, node_modules/, "
                        ".git/, dist/ or the relevance excluded_paths setting).",
            severity="warning",
            next_call_template={"tool": "search", "arguments": {"query": "<project code>"}},
            rank=REASON_RANK,
        )]

    @hookimpl(trylast=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> None:
        # trylast: candidate ids issued by other plugins (refgate) are already on the matches.
        baseline = Baseline.of(call, result, self._settings(session).top_k, session.roots)
        state = self._state(session)
        with session.lock:
            state.baseline = baseline
            state.warned = set()

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict | None:
        settings = self._settings(session)
        state = self._state(session)
        with session.lock:
            baseline = state.baseline
        finding = judge(call, baseline, settings, session.roots)
        if finding is None:
            return None
        if not settings.hard:
            # A warning is said once per target and search: the agent heard it and chose
            # to read on; repeating it on every later read of that file is noise it pays for.
            with session.lock:
                if finding.target in state.warned:
                    return None
                if state.warned:  # the alternatives were given with the first warning
                    finding = finding.said_again()
                state.warned.add(finding.target)
        annotations = {"alternatives": list(finding.alternatives)}
        if settings.hard:  # a refusal has no read header: it names its target itself
            return Verdict.block(*finding.reason_codes,
                                 message=f"Not read: {finding.target}. {finding.message}",
                                 hint=finding.hint, error_code=HARD_ERROR_CODE,
                                 next_calls=finding.next_calls, annotations=annotations,
                                 suggested_next_action=finding.suggested_next_action)
        return Verdict.warn(*finding.reason_codes, message=finding.message, hint=finding.hint,
                            next_calls=finding.next_calls, annotations=annotations,
                            suggested_next_action=finding.suggested_next_action)
