"""Deduplication and structural compression of a session's reads."""

from __future__ import annotations

from aggregation_workspace import (
    FILES,
    LONG,
    OTHER,
    TINY,
    change_on_disk,
    comparable,
    note,
    snippet,
)

from sari_aggregation import AggregationPlugin, AggregationSettings
from sari_aggregation.compress import reference_line
from sari_core import ReasonCodeSpec, Verdict, hookimpl, split_lines
from sari_core.kernel.sessions import Session
from sari_core.models import ReadCall, ReadResult

LINES = split_lines(FILES[LONG])


def lines(start: int, end: int) -> str:
    return "".join(LINES[start - 1:end])


def codes(response: dict) -> list[str]:
    return response["meta"]["stabilization"]["reason_codes"]


def test_defaults() -> None:
    settings = AggregationSettings()
    assert settings.modes == ["file", "snippet", "symbol"]
    assert settings.max_items_per_session == 512


def test_a_first_read_is_delivered_whole_and_numbered(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_read({"mode": "file", "target": LONG})
    assert response["text"] == FILES[LONG]
    assert note(response)["context_item"] == 1
    assert "segments" not in note(response)  # verbatim: lines start_line..end_line as they are
    assert response["meta"]["stabilization"]["context_bundle_id"].startswith("cb_")
    assert codes(response) == []
    assert response["meta"]["preview_degraded"] is False


def test_an_unchanged_re_read_is_a_short_reference(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read({"mode": "file", "target": LONG})
    again = kernel.execute_read({"mode": "file", "target": LONG})
    assert again["text"] == reference_line(LONG, 1, 120, 1)
    assert again["text"] == (f"[sari] {LONG} lines 1-120 unchanged: already delivered in "
                             "context item 1, not repeated.\n")
    assert note(again)["segments"] == [{"lines": [1, 120], "item": 1}]
    assert again["meta"]["stabilization"]["metrics_snapshot"]["aggregation_lines_referenced"] \
        == 120
    assert codes(again) == ["AGGREGATION_DEDUPLICATED"]
    assert again["meta"]["preview_degraded"] is False  # nothing was lost
    assert again["meta"]["token_estimate"] * 20 < len(FILES[LONG]) // 4


def test_an_overlapping_range_sends_only_the_new_lines(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read(snippet(LONG, 1, 60))
    overlap = kernel.execute_read(snippet(LONG, 40, 100))
    assert overlap["text"] == reference_line(LONG, 40, 60, 1) + lines(61, 100)
    assert note(overlap)["segments"] == [{"lines": [40, 60], "item": 1}, {"lines": [61, 100]}]


def test_gaps_between_earlier_reads_are_filled_in_order(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read(snippet(LONG, 10, 20))
    kernel.execute_read(snippet(LONG, 30, 40))
    wide = kernel.execute_read(snippet(LONG, 1, 50))
    assert wide["text"] == (lines(1, 9) + reference_line(LONG, 10, 20, 1) + lines(21, 29)
                            + reference_line(LONG, 30, 40, 2) + lines(41, 50))
    assert note(wide)["segments"] == [
        {"lines": [1, 9]}, {"lines": [10, 20], "item": 1}, {"lines": [21, 29]},
        {"lines": [30, 40], "item": 2}, {"lines": [41, 50]}]
    # The latest item that delivered a line is the one referenced.
    latest = kernel.execute_read(snippet(LONG, 1, 50))
    assert note(latest)["segments"] == [
        {"lines": [1, 9], "item": 3}, {"lines": [10, 20], "item": 1},
        {"lines": [21, 29], "item": 3}, {"lines": [30, 40], "item": 2},
        {"lines": [41, 50], "item": 3}]


def test_a_file_changed_on_disk_is_sent_in_full(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read({"mode": "file", "target": LONG})
    changed = FILES[LONG].replace("line 120", "line 120 (edited)")
    change_on_disk(kernel, LONG, changed)
    again = kernel.execute_read({"mode": "file", "target": LONG})
    assert again["text"] == changed
    assert "segments" not in note(again)
    third = kernel.execute_read(snippet(LONG, 1, 10))
    assert note(third)["segments"] == [{"lines": [1, 10], "item": 2}]


def test_a_file_changed_through_sari_is_sent_in_full(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read({"mode": "file", "target": OTHER})
    edited = kernel.execute_mutation("edit", {"path": OTHER, "old_string": "'value number 40'",
                                              "new_string": "'value number forty'"})
    assert edited["ok"]
    again = kernel.execute_read({"mode": "file", "target": OTHER})
    assert "value number forty" in again["text"]
    assert "[sari]" not in again["text"]


def test_short_runs_stay_verbatim_when_a_reference_would_be_longer(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read({"mode": "file", "target": TINY})
    again = kernel.execute_read({"mode": "file", "target": TINY})
    assert again["text"] == FILES[TINY]
    assert "segments" not in note(again)
    assert codes(again) == []


def test_sessions_do_not_share_what_they_received(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_read({"mode": "file", "target": LONG, "session_id": "a"})
    other = kernel.execute_read({"mode": "file", "target": LONG, "session_id": "b"})
    assert other["text"] == FILES[LONG]
    same = kernel.execute_read({"mode": "file", "target": LONG, "session_id": "a"})
    assert same["text"].startswith("[sari]")


def test_the_oldest_items_are_forgotten_past_the_bound(make_kernel) -> None:
    kernel = make_kernel(settings={"aggregation": {"max_items_per_session": 2}})
    kernel.execute_read(snippet(LONG, 1, 10))
    kernel.execute_read(snippet(LONG, 11, 20))
    kernel.execute_read(snippet(LONG, 21, 30))
    again = kernel.execute_read(snippet(LONG, 1, 30))
    assert note(again)["segments"] == [
        {"lines": [1, 10]}, {"lines": [11, 20], "item": 2}, {"lines": [21, 30], "item": 3}]


def test_diff_previews_and_other_modes_are_left_alone(make_kernel) -> None:
    kernel = make_kernel(settings={"aggregation": {"modes": ["snippet"]}})
    kernel.execute_read({"mode": "file", "target": LONG})
    again = kernel.execute_read({"mode": "file", "target": LONG})
    assert again["text"] == FILES[LONG]
    assert "annotations" not in again["meta"]["stabilization"]
    diff = kernel.execute_read({"mode": "diff_preview", "target": LONG, "against": "HEAD"})
    assert diff["ok"] and "annotations" not in diff["meta"]["stabilization"]


class Uppercase:
    """A later policy that rewrites the payload: aggregation must not trust its own copy."""

    name = "test.uppercase"

    @hookimpl(trylast=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> None:
        result.text = result.text.upper()


class RefuseAtExit:
    name = "test.refuse-at-exit"

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("TEST_WITHHELD", "A test refusal at exit.", severity="error")]

    @hookimpl
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session
                     ) -> Verdict | None:
        if call.limit == 7:
            return Verdict.block("TEST_WITHHELD", message="withheld")
        return None


def test_text_rewritten_after_aggregation_is_never_referenced(make_kernel) -> None:
    kernel = make_kernel(AggregationPlugin(), Uppercase())
    kernel.execute_read({"mode": "file", "target": LONG})
    again = kernel.execute_read({"mode": "file", "target": LONG})
    assert again["text"] == FILES[LONG].upper()


def test_a_refused_read_delivers_nothing_to_refer_to(make_kernel) -> None:
    kernel = make_kernel(AggregationPlugin(), RefuseAtExit())
    withheld = kernel.execute_read({"mode": "file", "target": LONG, "limit": 7})
    assert withheld["ok"] is False
    served = kernel.execute_read({"mode": "file", "target": LONG, "limit": 8})
    assert served["text"] == lines(1, 8)


def test_the_same_sequence_gives_the_same_output(make_kernel) -> None:
    sequence = [{"mode": "file", "target": LONG}, snippet(LONG, 50, 70), snippet(OTHER, 1, 20),
                {"mode": "file", "target": OTHER, "offset": 10}, snippet(LONG, 100, 120),
                {"mode": "file", "target": LONG}]
    runs = []
    for _ in range(2):
        kernel = make_kernel()
        runs.append([comparable(kernel.execute_read(args)) for args in sequence])
    assert runs[0] == runs[1]
    bundle_ids = [r["meta"]["stabilization"]["context_bundle_id"] for r in runs[0]]
    assert bundle_ids[0] == bundle_ids[1]  # a pure re-read adds nothing to the bundle
    assert bundle_ids[1] != bundle_ids[2]  # new content, new bundle


def test_the_bundle_id_names_the_content_not_the_order(make_kernel) -> None:
    first = make_kernel()
    first.execute_read(snippet(LONG, 1, 10))
    a = first.execute_read(snippet(OTHER, 1, 10))
    second = make_kernel()
    second.execute_read(snippet(OTHER, 1, 10))
    b = second.execute_read(snippet(LONG, 1, 10))
    assert a["meta"]["stabilization"]["context_bundle_id"] == \
        b["meta"]["stabilization"]["context_bundle_id"]
