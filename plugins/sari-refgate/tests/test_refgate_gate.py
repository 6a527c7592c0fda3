"""The read gate: a read the session's own searches returned is served as asked (ref or
not); a precision read is served; any other read is served as its first window with one
sentence, or refused in strict mode with the search that would back it."""

from __future__ import annotations

from typing import Any

import pytest

from sari_core import Kernel
from sari_core.rendering import render
from sari_core.testing import run_next_call, stabilization

STRICT = {"refgate": {"strict": True}}
GATE_CODES = {"SEARCH_FIRST_REQUIRED", "SEARCH_REF_REQUIRED", "CANDIDATE_REF_REQUIRED",
              "REFGATE_RANGE_TOO_WIDE", "REFGATE_READ_WINDOWED", "REFGATE_READ_OUTLINED",
              "REFGATE_DRIFT_OUTLINED"}


def _refused(response: dict[str, Any], code: str) -> dict[str, Any]:
    assert response["ok"] is False, response
    assert response["error"]["code"] == code
    assert code in stabilization(response)["reason_codes"]
    assert stabilization(response)["next_calls"], "a refusal must propose calls that succeed"
    return response


def _untouched(response: dict[str, Any]) -> dict[str, Any]:
    assert response["ok"], response
    assert not set(stabilization(response)["reason_codes"]) & GATE_CODES
    return response


def _windowed(response: dict[str, Any], first: int, last: int) -> dict[str, Any]:
    assert response["ok"], response
    assert stabilization(response)["reason_codes"] == ["REFGATE_READ_WINDOWED"]
    meta = response["meta"]
    assert (meta["start_line"], meta["end_line"]) == (first, last)
    assert response["text"].count("\n") == last - first + 1
    [sentence] = stabilization(response)["warnings"]
    assert sentence.startswith("No search in this session returned this file, so a read of it")
    return response


def _all_next_calls_succeed(kernel: Kernel, response: dict[str, Any], **kw: Any) -> None:
    for call in stabilization(response)["next_calls"]:
        served = run_next_call(kernel, call, **kw)
        assert served["ok"], (call, served)


def _first_match(kernel: Kernel, query: str = "load_config", **kw: Any) -> dict[str, Any]:
    response = kernel.execute_search({"query": query, **kw})
    return response["matches"][0]  # type: ignore[no-any-return]


# --- what the session's searches returned is served as asked ------------------------------


def test_a_file_the_session_searched_is_read_whole_without_a_ref(make_kernel) -> None:
    kernel = make_kernel(settings=STRICT)  # even strict: the search already backs the read
    match = _first_match(kernel, "value_300")
    assert match["path"] == "app/big.py"
    whole = _untouched(kernel.execute_read({"mode": "file", "target": "app/big.py"}))
    assert whole["meta"]["end_line"] == 450


def test_a_symbol_a_candidate_names_is_read_without_a_ref(make_kernel) -> None:
    kernel = make_kernel(settings=STRICT)
    _first_match(kernel)
    response = kernel.execute_read({"mode": "symbol", "target": "load_config"})
    assert not set(stabilization(response)["reason_codes"]) & GATE_CODES


def test_a_read_with_a_candidate_ref_of_the_session_is_served(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    response = kernel.execute_read({"mode": "file", "target": match["path"],
                                    "candidate_id": match["candidate_id"]})
    assert response["ok"] and response["text"]
    assert stabilization(response)["reason_codes"] == []


def test_a_read_with_a_bundle_ref_is_served_for_any_path_of_the_bundle(make_kernel) -> None:
    kernel = make_kernel(settings=STRICT)
    search = kernel.execute_search({"query": "load_config"})
    bundle = stabilization(search)["bundle_id"]
    for path in {m["path"] for m in search["matches"]}:
        assert kernel.execute_read({"mode": "file", "target": path, "bundle_id": bundle})["ok"]
    outside = kernel.execute_read({"mode": "file", "target": "app/server.py",
                                   "bundle_id": bundle})
    _refused(outside, "SEARCH_REF_REQUIRED")  # the bundle does not back another file


def test_a_ref_is_matched_with_the_target_in_any_spelling(make_kernel, workspace_root) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    for spelling in (f"./{match['path']}", str(workspace_root / match["path"])):
        response = kernel.execute_read({"mode": "file", "target": spelling,
                                        "candidate_id": match["candidate_id"]})
        assert stabilization(response)["reason_codes"] == [], spelling




# --- blind reads: a window and one sentence, not a refusal ------------------------------


def test_a_blind_whole_file_read_is_served_as_its_first_window(make_kernel) -> None:
    kernel = make_kernel()
    response = _windowed(kernel.execute_read({"mode": "file", "target": "app/big.py"}), 1, 100)
    assert stabilization(response)["next_calls"][0] == {
        "tool": "read", "arguments": {"mode": "file", "target": "app/big.py", "offset": 101,
                                      "limit": 100}}
    text = render(response)
    header = text.split("\n")[0]
    assert header.startswith("app/big.py lines 1-100 of 450. No search in this session returned "
                             "this file, so a read of it shows at most 100 lines.")
    assert header.endswith('Next: read(mode="file", target="app/big.py", offset=101, '
                           'limit=100)')
    _all_next_calls_succeed(kernel, response)


def test_a_blind_read_that_fits_one_window_is_served_untouched(make_kernel) -> None:
    kernel = make_kernel()
    _untouched(kernel.execute_read({"mode": "file", "target": "app/config.py"}))
    _untouched(kernel.execute_read({"mode": "file", "target": "app/big.py", "offset": 351}))


def test_a_100_line_snippet_is_served_and_101_lines_are_windowed(make_kernel) -> None:
    kernel = make_kernel()
    ok = _untouched(kernel.execute_read({"mode": "snippet", "target": "app/big.py",
                                         "start_line": 101, "end_line": 200}))
    assert ok["text"].count("\n") == 100
    wide = _windowed(kernel.execute_read({"mode": "snippet", "target": "app/big.py",
                                          "start_line": 101, "end_line": 201}), 101, 200)
    follow = stabilization(wide)["next_calls"][0]["arguments"]
    assert (follow["start_line"], follow["end_line"]) == (201, 201)
    _all_next_calls_succeed(kernel, wide)


def test_the_precision_cap_is_a_setting(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"max_range_lines": 50}})
    _untouched(kernel.execute_read({"mode": "file", "target": "app/big.py", "limit": 50}))
    _windowed(kernel.execute_read({"mode": "file", "target": "app/big.py", "limit": 51}), 1, 50)


def test_a_foreign_ref_backs_nothing(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel, "value_300", session_id="a")
    read = {"mode": "file", "target": "app/big.py", "candidate_id": match["candidate_id"]}
    assert kernel.execute_read({**read, "session_id": "a"})["meta"]["end_line"] == 450
    kernel.execute_search({"query": "serve", "session_id": "b"})
    _windowed(kernel.execute_read({**read, "session_id": "b"}), 1, 100)
    unknown = {**read, "candidate_id": "cand_0000000000000000", "session_id": "c"}
    _windowed(kernel.execute_read(unknown), 1, 100)


def test_deprecated_wrappers_go_through_the_gate(make_kernel) -> None:
    kernel = make_kernel()
    _windowed(kernel.execute_read({"path": "app/big.py"}, entrypoint="read_file"), 1, 100)


# --- strict: blind reads are refused, with the search that would back them ---------------


def test_strict_refuses_a_blind_read_ending_in_the_search_to_make(make_kernel) -> None:
    kernel = make_kernel(settings=STRICT)
    response = _refused(kernel.execute_read({"mode": "file", "target": "app/config.py"}),
                        "SEARCH_FIRST_REQUIRED")
    assert stabilization(response)["next_calls"][0] == {
        "tool": "search", "arguments": {"query": "config.py", "kind": "path"}}
    text = render(response)
    assert text.count(". ") <= 2 and "\n" not in text
    assert text.endswith('Next: search(query="config.py", kind="path")')
    _all_next_calls_succeed(kernel, response)
    _untouched(kernel.execute_read({"mode": "file", "target": "app/config.py"}))  # now backed


def test_strict_leaves_a_missing_file_to_the_engine_and_its_path_search(make_kernel) -> None:
    kernel = make_kernel(settings=STRICT)
    for call in ({"mode": "file", "target": "app/nowhere.py"},
                 {"mode": "snippet", "target": "app/nowhere.py", "start_line": 1,
                  "end_line": 400}):
        response = kernel.execute_read(call)
        assert response["error"]["code"] == "NOT_FOUND", response
        assert stabilization(response)["next_calls"] == [
            {"tool": "search", "arguments": {"query": "nowhere.py", "kind": "path"}}]


def test_strict_windows_stay_inside_the_file(make_kernel) -> None:
    kernel = make_kernel(settings=STRICT)
    _first_match(kernel)
    file_read = _refused(kernel.execute_read({"mode": "file", "target": "app/big.py",
                                              "offset": 101, "limit": 1000}),
                         "SEARCH_REF_REQUIRED")
    assert "REFGATE_RANGE_TOO_WIDE" in stabilization(file_read)["reason_codes"]
    windows = [c["arguments"] for c in stabilization(file_read)["next_calls"]
               if c["tool"] == "read"]
    assert [(w["offset"], w["limit"]) for w in windows] == [(101, 100), (201, 100), (301, 100)]
    _all_next_calls_succeed(kernel, file_read)


def test_strict_warn_policy_serves_the_read_with_the_same_codes(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"strict": True, "policy": "warn"}})
    response = kernel.execute_read({"mode": "file", "target": "app/config.py"})
    assert response["ok"] and response["text"]
    block = stabilization(response)
    assert block["reason_codes"] == ["SEARCH_FIRST_REQUIRED"]
    assert block["next_calls"][0]["tool"] == "search"


def test_modes_outside_gated_modes_pass(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"gated_modes": ["symbol"]}})
    response = kernel.execute_read({"mode": "file", "target": "app/config.py"})
    assert response["ok"] and stabilization(response)["reason_codes"] == []


# --- blind reads of long code files: the outline --------------------------------------

LONG = "".join(f"def handler_{n}(request):\n" + "    x = request\n" * 58 + "    return x\n\n"
               for n in range(1, 6))  # 5 functions, 305 lines


def test_a_blind_read_of_a_long_code_file_is_served_as_its_outline(make_kernel) -> None:
    from sari_refgate import RefgatePlugin

    kernel = make_kernel(RefgatePlugin(), files={"app/long.py": LONG, "app/config.py": "x = 1\n"})
    response = kernel.execute_read({"mode": "file", "target": "app/long.py"})
    assert response["ok"], response
    assert stabilization(response)["reason_codes"] == ["REFGATE_READ_OUTLINED"]
    assert response["meta"]["mode"] == "outline" and response["meta"]["file_lines"] == 305
    text = render(response)
    header, *rows = text.split("\n")
    # No window of the file's first lines is proposed: the outline names the lines to read.
    assert header == ("app/long.py outline (file of 305 lines). No search in this session "
                      "returned this file, so this is its outline: read the lines you need.")
    assert stabilization(response)["next_calls"] == []
    assert rows == [f"function handler_{n} {61 * n - 60}-{61 * n - 1}" for n in range(1, 6)]
    assert len(text) < 400  # far less than the 100 lines a window would have shown
    _all_next_calls_succeed(kernel, response)


def test_the_lines_an_outline_names_are_read_in_full_next(make_kernel) -> None:
    """With aggregation installed, the outline must not count as delivering file lines."""
    aggregation = pytest.importorskip("sari_aggregation")
    from sari_refgate import RefgatePlugin

    kernel = make_kernel(RefgatePlugin(), aggregation.AggregationPlugin(),
                         files={"app/long.py": LONG, "app/config.py": "x = 1\n"})
    response = kernel.execute_read({"mode": "file", "target": "app/long.py"})
    assert stabilization(response)["reason_codes"] == ["REFGATE_READ_OUTLINED"]
    follow = kernel.execute_read({"mode": "snippet", "target": "app/long.py", "start_line": 1,
                                  "end_line": 100})
    assert follow["ok"] and follow["meta"]["end_line"] == 100
    assert "unchanged" not in render(follow) and "def handler_2(request):" in follow["text"]


def test_the_outline_can_be_turned_off_and_needs_definitions(make_kernel) -> None:
    from sari_refgate import RefgatePlugin

    files = {"app/long.py": LONG, "app/data.txt": "row\n" * 400}
    window = make_kernel(RefgatePlugin(), files=files,
                         settings={"refgate": {"blind_reads": "window"}})
    _windowed(window.execute_read({"mode": "file", "target": "app/long.py"}), 1, 100)
    kernel = make_kernel(RefgatePlugin(), files=files)
    _windowed(kernel.execute_read({"mode": "file", "target": "app/data.txt"}), 1, 100)
    # A range that fits one window is served as asked: the agent said which lines it wants.
    _untouched(kernel.execute_read({"mode": "file", "target": "app/long.py", "limit": 100}))


MANY = "".join(f"def handler_{n}(request):\n" + "    x = request\n" * 58 + "    return x\n\n"
               for n in range(1, 11))  # 10 functions, 610 lines


def test_a_blind_range_wider_than_a_window_is_served_as_the_outline_of_its_lines(
        make_kernel) -> None:
    from sari_refgate import RefgatePlugin

    kernel = make_kernel(RefgatePlugin(), files={"app/many.py": MANY})
    response = kernel.execute_read({"mode": "file", "target": "app/many.py", "offset": 301,
                                    "limit": 250})
    assert stabilization(response)["reason_codes"] == ["REFGATE_READ_OUTLINED"]
    # Only the definitions that reach into lines 301-550, not the whole file's.
    assert response["text"].splitlines() == [
        f"function handler_{n} {61 * n - 60}-{61 * n - 1}" for n in range(5, 11)]
    header = render(response).split("\n")[0]
    assert header.endswith("so this is the outline of lines 301-550: read the lines you need.")
    _all_next_calls_succeed(kernel, response)


def test_a_wide_range_of_a_searched_file_is_read_as_asked_only_where_a_search_matched(
        make_kernel) -> None:
    """The search found handler_9 at line 489: lines 451-600 are read as asked, but lines
    1-300 of the same file are as blind as any unsearched file's, so their outline comes;
    strict refuses neither (the file was searched)."""
    from sari_refgate import RefgatePlugin

    for settings in ({}, STRICT):
        kernel = make_kernel(RefgatePlugin(), files={"app/many.py": MANY}, settings=settings)
        found = kernel.execute_search({"query": "def handler_9"})
        assert (found["matches"][0]["path"], found["matches"][0]["line"]) == ("app/many.py", 489)
        near = _untouched(kernel.execute_read({"mode": "file", "target": "app/many.py",
                                               "offset": 451, "limit": 150}))
        assert (near["meta"]["start_line"], near["meta"]["end_line"]) == (451, 600)
        top = {"mode": "file", "target": "app/many.py", "offset": 0, "limit": 300}
        far = kernel.execute_read(top)
        assert far["ok"] and stabilization(far)["reason_codes"] == ["REFGATE_READ_OUTLINED"]
        assert far["text"].splitlines() == [
            f"function handler_{n} {61 * n - 60}-{61 * n - 1}" for n in range(1, 6)]
        header = render(far).split("\n")[0]
        assert ("No search in this session matched these lines, so this is the outline of "
                "lines 1-300: read the lines you need.") in header
        _all_next_calls_succeed(kernel, far)
        # A precision read there is served as asked, and so is the same read once outlined.
        assert _untouched(kernel.execute_read(top))["meta"]["end_line"] == 300
        # A ref the session was issued for the file backs the range; a forged one does not.
        cid = kernel.execute_search({"query": "def handler_9", "session_id": "ref"})[
            "matches"][0]["candidate_id"]
        assert _untouched(kernel.execute_read({**top, "session_id": "ref",
                                               "candidate_id": cid}))["meta"]["end_line"] == 300
        kernel.execute_search({"query": "def handler_9", "session_id": "forged"})
        forged = kernel.execute_read({**top, "session_id": "forged",
                                      "candidate_id": "cand_0000000000000000"})
        assert stabilization(forged)["reason_codes"] == ["REFGATE_READ_OUTLINED"]


def test_after_its_outline_the_same_read_is_served_as_asked(make_kernel) -> None:
    """The agent has seen where to read; asking again gets the lines, not the outline again."""
    from sari_refgate import RefgatePlugin

    kernel = make_kernel(RefgatePlugin(), files={"app/long.py": LONG, "app/many.py": MANY})
    whole = {"mode": "file", "target": "app/long.py"}
    assert stabilization(kernel.execute_read(whole))["reason_codes"] == ["REFGATE_READ_OUTLINED"]
    again = _untouched(kernel.execute_read(whole))
    assert again["meta"].get("mode") != "outline" and "def handler_1(request):" in again["text"]
    ranged = {"mode": "snippet", "target": "app/many.py", "start_line": 1, "end_line": 400}
    assert stabilization(kernel.execute_read(ranged))["reason_codes"] == [
        "REFGATE_READ_OUTLINED"]
    assert _untouched(kernel.execute_read(ranged))["meta"]["end_line"] == 400
    # Only this session has seen it.
    other = kernel.execute_read({**whole, "session_id": "another"})
    assert stabilization(other)["reason_codes"] == ["REFGATE_READ_OUTLINED"]


def test_an_outline_longer_than_the_window_keeps_the_top_level(make_kernel) -> None:
    from sari_refgate import RefgatePlugin

    methods = "".join(f"    def method_{n}(self):\n        return {n}\n" for n in range(1, 121))
    source = "".join(f"class Part{c}:\n{methods}\n" for c in range(1, 4))  # 363 entries
    kernel = make_kernel(RefgatePlugin(), files={"app/parts.py": source})
    response = kernel.execute_read({"mode": "file", "target": "app/parts.py"})
    assert stabilization(response)["reason_codes"] == ["REFGATE_READ_OUTLINED"]
    assert response["text"].splitlines() == [
        f"class Part{c} {1 + 242 * (c - 1)}-{241 + 242 * (c - 1)}" for c in range(1, 4)]
    assert "this is its top-level outline" in stabilization(response)["warnings"][0]


# --- drift: many blind reads in a row --------------------------------------------------

SHORT = "".join(f"def part_{n}():\n    return {n}\n\n" for n in range(1, 11))  # 30 lines


def test_after_drift_after_blind_reads_in_a_row_a_read_is_outlined(make_kernel) -> None:
    from sari_refgate import RefgatePlugin

    files = {f"app/m{n}.py": SHORT for n in range(1, 7)}
    files["app/config.py"] = "def load_config():\n    return 1\n"
    kernel = make_kernel(RefgatePlugin(), files=files)
    kernel.execute_search({"query": "def load_config"})
    ranged = {"mode": "file", "offset": 0, "limit": 20}
    for n in (1, 2):  # short blind reads are served as asked...
        assert _untouched(kernel.execute_read({**ranged, "target": f"app/m{n}.py"}))["text"]
    drifted = kernel.execute_read({**ranged, "target": "app/m3.py"})  # ...until the 3rd
    assert stabilization(drifted)["reason_codes"] == ["REFGATE_DRIFT_OUTLINED"]
    assert drifted["text"].splitlines() == [
        f"function part_{n} {3 * n - 2}-{3 * n - 1}" for n in range(1, 8)]
    assert stabilization(drifted)["warnings"] == [
        "Read 3 in a row of files no search in this session returned: this is the outline of "
        "lines 1-20. Search for what you need, or read the lines."]
    assert "def part_1" in run_next_call(kernel, stabilization(drifted)["next_calls"][0])[
        "text"]
    # A read of a file the search returned ends the streak; so does a search.
    assert _untouched(kernel.execute_read({"mode": "file", "target": "app/config.py"}))
    assert _untouched(kernel.execute_read({**ranged, "target": "app/m5.py"}))
    kernel.execute_search({"query": "def load_config"})
    for n in (5, 6):
        assert _untouched(kernel.execute_read({**ranged, "target": f"app/m{n}.py"}))
    assert stabilization(kernel.execute_read({**ranged, "target": "app/m1.py"}))[
        "reason_codes"] == ["REFGATE_DRIFT_OUTLINED"]


def test_drift_after_is_a_setting_and_zero_turns_it_off(make_kernel) -> None:
    from sari_refgate import RefgatePlugin

    files = {f"app/m{n}.py": SHORT for n in range(1, 5)}
    ranged = {"mode": "file", "offset": 0, "limit": 20}
    off = make_kernel(RefgatePlugin(), files=files, settings={"refgate": {"drift_after": 0}})
    for n in range(1, 5):
        _untouched(off.execute_read({**ranged, "target": f"app/m{n}.py"}))
    one = make_kernel(RefgatePlugin(), files=files, settings={"refgate": {"drift_after": 1}})
    _untouched(one.execute_read({**ranged, "target": "app/m1.py"}))
    assert stabilization(one.execute_read({**ranged, "target": "app/m2.py"}))[
        "reason_codes"] == ["REFGATE_DRIFT_OUTLINED"]
