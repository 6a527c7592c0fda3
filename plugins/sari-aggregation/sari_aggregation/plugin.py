"""The sari-aggregation plugin: a session never receives the same lines twice.

``on_read_exit`` runs ``tryfirst`` so it sees the engine's full text and rewrites it
before any trim: lines the session already holds (same file content hash) become
references to the item that delivered them; lines not yet delivered stay verbatim;
a file that changed since is sent in full. What the client finally received — a
later policy may have trimmed the payload to a prefix — is only known once the
response is built, so the delivered lines are recorded in ``on_call_complete``
from the response itself: a reference never points at lines that did not leave.

A search answer that shows a definition with its hits delivers those lines too
(``on_search_complete``, last, names them in ``search_items``): a read of them later is a
reference to the search's item, with ``"search": true`` in its segment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sari_aggregation.compress import Compressed, compress
from sari_aggregation.ledger import NAMESPACE, ItemRecord, SessionLedger
from sari_aggregation.searched import MIN_ROWS, shown_rows
from sari_aggregation.settings import SECTION, AggregationSettings
from sari_core import (
    READ_TOOLS,
    CallContext,
    CallRecord,
    MutationEvent,
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
    split_lines,
)

DEDUPLICATED = "AGGREGATION_DEDUPLICATED"
REASON_RANK = 30
SEARCH_SCRATCH = "aggregation.search"


@dataclass(frozen=True)
class _Pending:
    """A rewritten read waiting for its response to leave (in its call's ``ctx.scratch``)."""

    session_key: str
    item: int
    record: ItemRecord
    compressed: Compressed


class AggregationPlugin(Plugin):
    """Auto-Aggregation: deduplicates a session's reads, deterministically."""

    name = "aggregation"

    # --- registration -----------------------------------------------------------------

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=AggregationSettings)

    @hookimpl
    def sari_register_stabilization_fields(self) -> list[StabilizationField]:
        # The bundle id of what the session holds sits at the top of each read's response.
        return [StabilizationField("context_bundle_id")]

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec(
            code=DEDUPLICATED,
            description="Lines the session already received unchanged were replaced by a "
                        "reference to the context item that holds them; nothing was lost.",
            severity="info",
            rank=REASON_RANK,
        )]

    @hookimpl
    def sari_collect_metrics(self, session: Session, ctx: CallContext | None
                             ) -> dict[str, Any]:
        ledger = _ledger(session)
        with session.lock:
            items, referenced = len(ledger.items), ledger.lines_referenced
        # The read being answered is recorded only once its response has left; count it now
        # so the snapshot in its own response is not one read behind.
        pending: _Pending | None = ctx.scratch.get(self.name) if ctx is not None else None
        if pending is not None:
            items += 1
            referenced += pending.compressed.lines_referenced
        return {"aggregation_items": items, "aggregation_lines_referenced": referenced}

    # --- reads ------------------------------------------------------------------------

    @hookimpl(tryfirst=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session,
                     ctx: CallContext) -> Verdict | None:
        settings: AggregationSettings = session.settings(SECTION)
        if call.mode not in settings.modes or result.diff is not None or not result.content_hash:
            return None
        if result.preview_degraded:
            return None  # the engine cut inside a line: its last line is not the file's line
        lines = split_lines(result.text)
        if not lines or len(lines) != result.lines_returned:
            return None  # the payload is not plain numbered lines: nothing to map safely
        ledger = _ledger(session)
        with session.lock:
            owners = dict(ledger.owners(result.path, result.content_hash))
            for number, item in ledger.search_owners(result.path, result.start_line,
                                                     lines).items():
                if item > owners.get(number, 0):  # the latest copy in the agent's context
                    owners[number] = item
            compressed = compress(result.path, result.start_line, lines, owners,
                                  ledger.searched_items())
            item = ledger.allocate_item()
            record = ItemRecord(result.path, result.content_hash,
                                tuple(number for number, _ in compressed.verbatim))
            bundle = ledger.bundle_id(record)
        result.text = compressed.text
        ctx.scratch[self.name] = _Pending(session.key, item, record, compressed)
        annotations: dict[str, Any] = {"context_bundle_id": bundle, "context_item": item}
        if compressed.lines_referenced:
            # Only a compressed read needs its structure spelled out; a verbatim one is
            # lines meta.start_line..meta.end_line as they are.
            annotations["segments"] = [segment.to_json() for segment in compressed.segments]
        codes = (DEDUPLICATED,) if compressed.lines_referenced else ()
        return Verdict(reason_codes=codes, annotations=annotations)

    # --- searches ---------------------------------------------------------------------

    @hookimpl(trylast=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult, session: Session,
                           ctx: CallContext) -> Verdict | None:
        """The definitions the answer shows with its hits are lines the agent now holds: a
        later read of them is a reference, not the same lines again. Last, so the matches
        are the ones that leave."""
        # Keyed by the engine's path, as a read's result names its file.
        rows = shown_rows((match.path, match.context) for match in result.matches)
        shown = {path: numbered for path, numbered in rows.items()
                 if len(numbered) >= MIN_ROWS}
        if not shown:
            return None
        ledger = _ledger(session)
        with session.lock:
            items = [(ledger.allocate_item(), path, numbered)
                     for path, numbered in shown.items()]
        ctx.scratch[SEARCH_SCRATCH] = items
        return Verdict(annotations={"search_items": [
            {"item": item, "path": path, "lines": sorted(numbered)}
            for item, path, numbered in items]})

    @hookimpl
    def on_call_complete(self, record: CallRecord, session: Session, ctx: CallContext) -> None:
        searched: list[tuple[int, str, dict[int, str]]] | None = \
            ctx.scratch.pop(SEARCH_SCRATCH, None)
        if searched is not None and record.ok:
            settings: AggregationSettings = session.settings(SECTION)
            ledger = _ledger(session)
            with session.lock:
                for item, path, numbered in searched:
                    ledger.commit_shown(item, path, numbered, settings.max_items_per_session)
        pending: _Pending | None = ctx.scratch.pop(self.name, None)
        if pending is None or record.tool not in READ_TOOLS:
            return
        text = record.response.get("text")
        if not record.ok or not isinstance(text, str):
            return
        produced = pending.compressed.text
        if not produced.startswith(text):
            return  # another policy rewrote the payload: record nothing, reference nothing
        delivered = tuple(number for number, end in pending.compressed.verbatim
                          if end <= len(text))
        ledger = _ledger(session)
        settings = session.settings(SECTION)
        with session.lock:
            ledger.commit(ItemRecord(pending.record.path, pending.record.content_hash, delivered),
                          pending.item, settings.max_items_per_session)
            ledger.lines_referenced += pending.compressed.lines_referenced

    # --- changes ----------------------------------------------------------------------

    @hookimpl
    def on_mutation(self, event: MutationEvent, session: Session) -> None:
        """Belt and braces next to the content hash: a changed file is sent in full."""
        if event.phase != "after":
            return
        ledger = _ledger(session)
        with session.lock:
            for path in event.paths:
                ledger.forget_path(path)


def _ledger(session: Session) -> SessionLedger:
    return session.namespace(NAMESPACE, SessionLedger)
