"""The sari-refgate plugin: issues refs on search, gates reads on them."""

from __future__ import annotations

import functools

from sari_core import (
    CallContext,
    NextCall,
    Plugin,
    ReadCall,
    ReadResult,
    ReasonCodeSpec,
    SearchCall,
    SearchResult,
    Session,
    SettingsSpec,
    StabilizationField,
    Verdict,
    hookimpl,
    normalize_path,
)
from sari_refgate import calls
from sari_refgate.gate import (
    DRIFT_OUTLINED,
    RANGE_TOO_WIDE,
    READ_OUTLINED,
    READ_WINDOWED,
    Window,
    backs,
    is_blind,
    judge,
    target_path,
)
from sari_refgate.outlines import Outline, outline_for, serve
from sari_refgate.reason_codes import REASON_CODES
from sari_refgate.refs import Bundle, CandidateRef, RefStore, bundle_id, candidate_id
from sari_refgate.settings import RefgateSettings

SECTION = "refgate"
NAMESPACE = "refgate"
REASON_RANK = 40


class RefgatePlugin(Plugin):
    """Search -> Ref -> Read: stable refs on search, a gate on read."""

    name = "refgate"

    @staticmethod
    def _settings(session: Session) -> RefgateSettings:
        settings: RefgateSettings = session.settings(SECTION)
        return settings

    def _store(self, session: Session) -> RefStore:
        limit = self._settings(session).max_bundles_per_session
        return session.namespace(NAMESPACE, lambda: RefStore(max_bundles=limit))

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=RefgateSettings)

    @hookimpl
    def sari_register_stabilization_fields(self) -> list[StabilizationField]:
        # A search's bundle id sits at the top of its response, where reads quote it from.
        return [StabilizationField("bundle_id")]

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [*REASON_CODES, ReasonCodeSpec(
            code=READ_WINDOWED,
            description="A read wider than max_range_lines of a file no search of the "
                        "session returned, or of lines of a searched file where no search "
                        "matched, was served as its first max_range_lines lines; next_calls "
                        "reads the next window.",
            severity="info",
            rank=REASON_RANK,
        ), ReasonCodeSpec(
            code=READ_OUTLINED,
            description="A read of more than max_range_lines lines (a whole file, or a named "
                        "range) of a file no search of the session returned, or a named range "
                        "of a searched file where no search matched, was served as the "
                        "outline of those lines (definitions with line ranges; blind_reads = "
                        "\"outline\"), from which the agent reads the lines it needs (no "
                        "window of the file's first lines is proposed); the next read of the "
                        "file is served as asked.",
            severity="info",
            rank=REASON_RANK,
        ), ReasonCodeSpec(
            code=DRIFT_OUTLINED,
            description="A read of any length came after drift_after reads in a row of files "
                        "no search of the session returned (no search between them): it was "
                        "served as the outline of its lines, with a sentence asking for a "
                        "search; next_calls reads the lines, and the next read of the file is "
                        "served as asked.",
            severity="info",
            rank=REASON_RANK,
        ), ReasonCodeSpec(
            code=RANGE_TOO_WIDE,
            description="A read without a search ref asked for more lines than the precision "
                        "cap (refgate max_range_lines); next_calls split it into windows.",
            severity="error",
            next_call_template={"tool": "read", "arguments": {
                "mode": "snippet", "target": "<path>", "start_line": "<first>",
                "end_line": "<first + max_range_lines - 1>"}},
            rank=REASON_RANK,
        )]

    @hookimpl(tryfirst=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> Verdict:
        # tryfirst: other plugins' on_search_complete (relevance) see the candidate ids.
        settings = self._settings(session)
        workspace = session.workspace_id
        roots = session.roots
        candidates: list[CandidateRef] = []
        proposals: list[NextCall] = []
        proposed_paths: set[str] = set()
        for match in result.matches:
            path = normalize_path(match.path, roots)
            # a copy only when the path is spelled otherwise (most are not): ids hash the path
            cid = candidate_id(workspace, call, match if path == match.path
                               else match.model_copy(update={"path": path}))
            match.candidate_id = cid
            candidates.append(CandidateRef.of(cid, path, match))
            if len(proposals) < settings.next_calls_per_search and path not in proposed_paths:
                proposed_paths.add(path)
                proposals.append(calls.read_for_match(
                    match, cid, settings.max_range_lines, settings.window_context_lines,
                    call.session_id))
        bid = bundle_id(workspace, call, [c.candidate_id for c in candidates])
        store = self._store(session)
        with session.lock:
            store.remember(Bundle(bid, call.query, call.kind, tuple(candidates)))
        return Verdict(next_calls=tuple(proposals), annotations={"bundle_id": bid})

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session, ctx: CallContext
                      ) -> Verdict | None:
        settings = self._settings(session)
        store = self._store(session)
        with session.lock:
            issued = store.snapshot()
        # Outside the lock: a refusal may ask the engine for the file's length.
        @functools.cache  # asked at most once, and only by a read that needs it
        def line_count() -> int | None:
            return session.file_lines(call.target)

        backed = backs(call, issued, session.roots)
        blind = is_blind(call, settings, backed)
        with session.lock:
            streak = store.count_read(blind)
        outlining = settings.blind_reads == "outline" and not settings.strict
        if blind and outlining and settings.drift_after and streak > settings.drift_after:
            outline = outline_for(call, session, line_count(), settings.max_range_lines,
                                  drift=streak)
            if outline is not None:
                return self._serve_outline(DRIFT_OUTLINED, call, session, store, outline, ctx)
        refusal = judge(call, issued, settings, session.roots, line_count=line_count,
                        backed=backed)
        if refusal is None:
            return None
        if isinstance(refusal, Window):
            # strict refuses reads of unsearched files, so only these come here in it: lines
            # of a searched file where no search matched, bounded as in the default mode
            wants_outline = settings.blind_reads == "outline" and (
                not settings.strict or refusal.searched)
            outline = outline_for(call, session, line_count(), settings.max_range_lines,
                                  searched=refusal.searched) if wants_outline else None
            if outline is not None:
                return self._serve_outline(READ_OUTLINED, call, session, store, outline, ctx)
            return Verdict.narrow(READ_WINDOWED, to={"limit": refusal.limit},
                                  message=refusal.message, warnings=(refusal.message,),
                                  next_calls=refusal.next_calls)
        if settings.policy == "enforce":
            return Verdict.block(*refusal.reason_codes, message=refusal.message,
                                 hint=refusal.hint, error_code=refusal.error_code,
                                 next_calls=refusal.next_calls,
                                 suggested_next_action=refusal.suggested_next_action)
        return Verdict.warn(*refusal.reason_codes, message=refusal.message, hint=refusal.hint,
                            next_calls=refusal.next_calls,
                            suggested_next_action=refusal.suggested_next_action)


    def _serve_outline(self, code: str, call: ReadCall, session: Session, store: RefStore,
                       outline: Outline, ctx: CallContext) -> Verdict:
        """Narrow the read to one line now; its payload becomes the outline at exit."""
        path = target_path(call, session.roots)
        if path is not None:
            with session.lock:
                store.saw_outline(path)
        ctx.scratch[self.name] = outline
        return Verdict.narrow(code, to={"limit": 1}, message=outline.message,
                              warnings=(outline.message,), next_calls=outline.next_calls)

    @hookimpl
    def on_read_exit(self, result: ReadResult, ctx: CallContext) -> None:
        outline: Outline | None = ctx.scratch.pop(self.name, None)
        if outline is not None:
            serve(result, outline)
