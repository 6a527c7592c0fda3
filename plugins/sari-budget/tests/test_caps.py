"""One read against the per-read caps: trimmed to the cap when over it, untouched within."""

from __future__ import annotations

from budget_workspace import BIG, EXACT, FILES, LONG_DEF, NEIGHBOURS, SMALL, WIDE

from sari_budget import BudgetSettings
from sari_budget.trim import trim_payload
from sari_core import split_lines
from sari_core.testing import stabilization


def test_defaults_are_the_seeds() -> None:
    settings = BudgetSettings()
    assert (settings.max_reads_per_session, settings.max_total_read_lines,
            settings.max_single_read_lines, settings.max_preview_chars) == (25, 2500, 300, 12000)
    assert settings.soft_limit_ratio == 0.8


def test_a_read_within_its_limits_is_not_degraded(make_kernel) -> None:
    kernel = make_kernel()
    for target in (SMALL, EXACT):
        response = kernel.execute_read({"mode": "file", "target": target})
        assert response["ok"]
        assert response["text"] == FILES[target]
        assert response["meta"]["preview_degraded"] is False
        assert response["meta"]["truncated"] is False
        assert stabilization(response)["reason_codes"] == []
        assert stabilization(response)["budget_state"] == "ok"
        assert stabilization(response)["warnings"] == []


def test_a_read_over_the_line_cap_is_trimmed_to_it(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_read({"mode": "file", "target": BIG})
    assert response["ok"]
    lines = split_lines(FILES[BIG])
    assert response["text"] == "".join(lines[:300])
    assert response["meta"]["preview_degraded"] is True
    assert response["meta"]["truncated"] is True
    assert response["meta"]["end_line"] == 300
    block = stabilization(response)
    assert block["reason_codes"] == ["PREVIEW_DEGRADED"]
    assert "max_single_read_lines=300" in block["warnings"][0]
    assert block["next_calls"] == [{"tool": "read", "arguments": {
        "mode": "file", "target": BIG, "offset": 301}}]


def test_following_the_continuations_delivers_every_line_once(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_read({"mode": "file", "target": BIG})
    delivered = response["text"]
    while stabilization(response)["next_calls"]:
        follow = stabilization(response)["next_calls"][0]
        assert follow["tool"] == "read"
        response = kernel.execute_read(follow["arguments"])
        assert response["ok"]
        delivered += response["text"]
    assert delivered == FILES[BIG]


def test_a_read_that_names_its_range_is_served_whole_up_to_the_range_cap(make_kernel) -> None:
    """The agent chose those lines; cutting them at the 300-line cap would cost it a turn."""
    kernel = make_kernel()
    snippet = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 101,
                                   "end_line": 550})
    assert snippet["text"] == "".join(split_lines(FILES[BIG])[100:550])
    assert stabilization(snippet)["reason_codes"] == []
    paged = kernel.execute_read({"mode": "file", "target": BIG, "offset": 11, "limit": 500})
    assert (paged["meta"]["start_line"], paged["meta"]["end_line"]) == (11, 510)
    whole = kernel.execute_read({"mode": "file", "target": BIG})  # no range named: 300
    assert whole["meta"]["end_line"] == 300


RANGE_CAP_300 = {"budget": {"max_range_read_lines": 300}}


def test_a_snippet_over_the_line_cap_continues_as_a_snippet(make_kernel) -> None:
    kernel = make_kernel(settings=RANGE_CAP_300)
    response = kernel.execute_read({"mode": "snippet", "target": BIG, "start_line": 101,
                                    "end_line": 550})
    assert response["text"] == "".join(split_lines(FILES[BIG])[100:400])
    assert stabilization(response)["next_calls"] == [{"tool": "read", "arguments": {
        "mode": "snippet", "target": BIG, "start_line": 401, "end_line": 550}}]


def test_a_paged_read_continues_to_its_own_end(make_kernel) -> None:
    kernel = make_kernel(settings=RANGE_CAP_300)
    response = kernel.execute_read({"mode": "file", "target": BIG, "offset": 11, "limit": 500})
    assert response["meta"]["end_line"] == 310
    assert stabilization(response)["next_calls"] == [{"tool": "read", "arguments": {
        "mode": "file", "target": BIG, "offset": 311, "limit": 200}}]


def test_a_read_over_the_character_cap_is_cut_at_a_line_end(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_read({"mode": "file", "target": WIDE})
    text = response["text"]
    assert len(FILES[WIDE]) > 12000 >= len(text)
    assert text.endswith("\n") and FILES[WIDE].startswith(text)
    assert len(text) > 12000 - 200  # as many whole lines as fit
    assert response["meta"]["preview_degraded"] is True
    block = stabilization(response)
    assert block["reason_codes"] == ["PREVIEW_DEGRADED"]
    assert "max_preview_chars=12000" in block["warnings"][0]
    kept = text.count("\n")
    assert block["next_calls"][0]["arguments"]["offset"] == kept + 1


def test_a_smaller_max_preview_chars_argument_wins(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_read({"mode": "file", "target": SMALL, "max_preview_chars": 20})
    assert 0 < len(response["text"]) <= 20 and FILES[SMALL].startswith(response["text"])
    assert response["meta"]["truncated"] is True
    # The engine honours the argument itself (cutting at a line end, not degraded); the
    # budget applies it too, for an engine that would not.
    if response["meta"]["preview_degraded"]:
        assert "max_preview_chars=20" in stabilization(response)["warnings"][0]


def test_configured_caps_apply(make_kernel) -> None:
    kernel = make_kernel(settings={"budget": {"max_single_read_lines": 10}})
    response = kernel.execute_read({"mode": "file", "target": EXACT})
    assert response["text"].count("\n") == 10
    assert response["meta"]["preview_degraded"] is True


def test_trim_keeps_a_prefix_and_counts_whole_lines() -> None:
    assert trim_payload("a\nb\nc\n", 2, 100).text == "a\nb\n"
    cut = trim_payload("a\nbbbbbb\n", 10, 5)
    assert (cut.text, cut.complete_lines, cut.cut_by) == ("a\n", 1, "chars")
    long_line = trim_payload("x" * 50, 10, 8)
    assert (long_line.text, long_line.complete_lines, long_line.lines_kept) == ("x" * 8, 0, 1)
    untouched = trim_payload("a\nb", 2, 3)
    assert not untouched.was_cut and untouched.text == "a\nb"
    # Form feeds are not line breaks: line numbers must match the engine's.
    assert split_lines("a\x0cb\nc") == ["a\x0cb\n", "c"]


def test_a_capped_whole_file_read_shows_the_window_around_the_search_match(make_kernel
                                                                          ) -> None:
    """The part of a long file the session searched for arrives in the first read, so no
    turn is spent paging to it; the file's outline, to find the rest, is one call away."""
    kernel = make_kernel()
    lines = split_lines(FILES[BIG])
    target_line = 600
    needle = lines[target_line - 1].strip()
    found = kernel.execute_search({"query": needle})
    assert found["matches"][0]["path"] == BIG and found["matches"][0]["line"] == target_line
    response = kernel.execute_read({"mode": "file", "target": BIG})
    meta = response["meta"]
    assert meta["start_line"] <= target_line <= meta["end_line"]
    assert meta["end_line"] - meta["start_line"] + 1 == 300
    assert response["text"] == "".join(lines[meta["start_line"] - 1:meta["end_line"]])
    assert "BUDGET_WINDOW_AT_MATCH" in stabilization(response)["reason_codes"]
    [warning] = stabilization(response)["warnings"]
    assert warning == f"Shown: the window around the search match at line {target_line}."
    top = stabilization(response)["next_calls"][0]
    assert top == {"tool": "read", "arguments": {"mode": "outline", "target": BIG}}
    # Without a search there is nothing to aim at: the first lines, as before.
    fresh = make_kernel().execute_read({"mode": "file", "target": BIG, "session_id": "new"})
    assert fresh["meta"]["start_line"] == 1 and fresh["meta"]["end_line"] == 300


def test_a_capped_whole_file_read_shows_the_matched_definition_whole(make_kernel) -> None:
    """A search that matched a definition: the read shows all of it and a few lines around,
    not 300 lines of the file; the file's outline is one call away."""
    kernel = make_kernel()
    found = kernel.execute_search({"query": "def target_function"})
    first = found["matches"][0]
    assert (first["path"], first["line"], first["end_line"]) == (LONG_DEF, 201, 260)
    response = kernel.execute_read({"mode": "file", "target": LONG_DEF})
    assert (response["meta"]["start_line"], response["meta"]["end_line"]) == (191, 270)
    assert response["text"] == "".join(split_lines(FILES[LONG_DEF])[190:270])
    [warning] = stabilization(response)["warnings"]
    assert warning == "Shown: the definition the search matched (lines 201-260)."
    assert stabilization(response)["next_calls"][0]["arguments"] == {
        "mode": "outline", "target": LONG_DEF}
    # A definition longer than a read that names its lines: its first part, and the call
    # for the rest of it.
    short = make_kernel(settings={"budget": {"max_single_read_lines": 40,
                                             "max_range_read_lines": 40}})
    short.execute_search({"query": "def target_function"})
    cut = short.execute_read({"mode": "file", "target": LONG_DEF})
    assert (cut["meta"]["start_line"], cut["meta"]["end_line"]) == (191, 230)
    assert stabilization(cut)["next_calls"][0]["arguments"] == {
        "mode": "file", "target": LONG_DEF, "offset": 231, "limit": 40}


def test_a_search_that_matched_a_definition_s_first_line_shows_that_definition(
        make_kernel) -> None:
    """A search answered from a scan while the index is still being built gives lines, not
    definitions' spans; a hit on the line a definition begins at is still that definition,
    and the whole-file read after it shows all of it, not the window around the line."""
    kernel = make_kernel()
    kernel.engine.scan_before_build = True  # as the CLI and a starting server answer
    found = kernel.execute_search({"query": "def target_function"})
    first = found["matches"][0]
    assert (first["path"], first["line"]) == (LONG_DEF, 201)
    assert first.get("end_line") in (None, 201)  # a line, not the definition's span
    response = kernel.execute_read({"mode": "file", "target": LONG_DEF})
    assert (response["meta"]["start_line"], response["meta"]["end_line"]) == (191, 270)
    [warning] = stabilization(response)["warnings"]
    assert warning == "Shown: the definition the search matched (lines 201-260)."


def test_a_matched_definition_longer_than_one_read_still_comes_whole(make_kernel) -> None:
    """The search chose those lines: a definition longer than max_single_read_lines is
    served whole (up to max_range_read_lines), not cut for a second read to finish."""
    kernel = make_kernel(settings={"budget": {"max_single_read_lines": 40}})
    kernel.execute_search({"query": "def target_function"})
    response = kernel.execute_read({"mode": "file", "target": LONG_DEF})
    assert (response["meta"]["start_line"], response["meta"]["end_line"]) == (191, 270)
    assert response["text"] == "".join(split_lines(FILES[LONG_DEF])[190:270])
    assert not response["meta"]["truncated"]
    assert stabilization(response)["reason_codes"] == ["BUDGET_WINDOW_AT_MATCH"]


def test_the_window_takes_in_the_definitions_beside_it_that_it_calls_or_that_call_it(
        make_kernel) -> None:
    """entry (151-170) calls _helper (172-230), right below it: one read shows both, so the
    agent needs no second read. caller (101-102) calls entry but sits 38 lines above the
    window: taking it in would pad the window with those lines, so it stays out, as does
    _far (480-490), which would make the window wider than one read."""
    lines = split_lines(FILES[NEIGHBOURS])
    assert lines[150].startswith("def entry") and lines[479].startswith("def _far")
    kernel = make_kernel()
    found = kernel.execute_search({"query": "def entry"})
    assert (found["matches"][0]["line"], found["matches"][0]["end_line"]) == (151, 170)
    response = kernel.execute_read({"mode": "file", "target": NEIGHBOURS})
    assert (response["meta"]["start_line"], response["meta"]["end_line"]) == (141, 230)
    assert response["text"] == "".join(lines[140:230])
    [warning] = stabilization(response)["warnings"]
    assert warning == ("Shown: the definition the search matched (lines 151-170) and, beside "
                       "it, _helper (172-230), which it calls or which call it.")
    # A narrower setting keeps the window to what fits: _helper (to 230) stays out too.
    narrow = make_kernel(settings={"budget": {"max_single_read_lines": 60}})
    narrow.execute_search({"query": "def entry"})
    served = narrow.execute_read({"mode": "file", "target": NEIGHBOURS})
    assert (served["meta"]["start_line"], served["meta"]["end_line"]) == (141, 200)


def test_a_short_matched_definition_comes_with_what_follows_it(make_kernel) -> None:
    kernel = make_kernel(settings={"budget": {"min_match_window_lines": 100}})
    kernel.execute_search({"query": "def target_function"})
    response = kernel.execute_read({"mode": "file", "target": LONG_DEF})
    # lines 191-290: 10 before the definition (201-260), and what follows, 100 in all
    assert (response["meta"]["start_line"], response["meta"]["end_line"]) == (191, 290)
