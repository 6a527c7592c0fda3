"""The read gate: refused without a valid ref of the session, except precision reads <= 200 lines."""

from __future__ import annotations

from typing import Any

import pytest
from kernel_responses import run_next_call, stabilization

from sari_core import Kernel

GUIDANCE = "Use search results (candidate/bundle ref) or precision read path+range."


def _refused(response: dict[str, Any], code: str) -> dict[str, Any]:
    assert response["ok"] is False, response
    assert response["error"]["code"] == code
    assert code in stabilization(response)["reason_codes"]
    assert GUIDANCE in response["error"]["message"]
    assert response["error"]["hint"]
    assert stabilization(response)["next_calls"], "a refusal must propose calls that succeed"
    return response


def _all_next_calls_succeed(kernel: Kernel, response: dict[str, Any], **kw: Any) -> None:
    for call in stabilization(response)["next_calls"]:
        served = run_next_call(kernel, call, **kw)
        assert served["ok"], (call, served)


def _first_match(kernel: Kernel, query: str = "load_config", **kw: Any) -> dict[str, Any]:
    response = kernel.execute_search({"query": query, **kw})
    return response["matches"][0]  # type: ignore[no-any-return]


# --- without a ref ----------------------------------------------------------------------


def test_a_read_before_any_search_is_refused_with_search_first(make_kernel) -> None:
    kernel = make_kernel()
    response = _refused(kernel.execute_read({"mode": "file", "target": "app/config.py"}),
                        "SEARCH_FIRST_REQUIRED")
    next_calls = stabilization(response)["next_calls"]
    assert next_calls[0] == {"tool": "search",
                             "arguments": {"query": "config.py", "kind": "path"}}
    assert stabilization(response)["suggested_next_action"].startswith("Search first (search ")
    _all_next_calls_succeed(kernel, response)


def test_a_read_without_a_ref_after_a_search_is_refused_and_told_its_ref(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    response = _refused(kernel.execute_read({"mode": "file", "target": match["path"]}),
                        "SEARCH_REF_REQUIRED")
    first = stabilization(response)["next_calls"][0]
    assert first == {"tool": "read", "arguments": {"mode": "file", "target": match["path"],
                                                   "candidate_id": match["candidate_id"]}}
    _all_next_calls_succeed(kernel, response)


def test_a_target_no_search_returned_gets_a_search_and_a_window(make_kernel) -> None:
    kernel = make_kernel()
    _first_match(kernel)
    response = _refused(kernel.execute_read({"mode": "file", "target": "app/server.py"}),
                        "SEARCH_REF_REQUIRED")
    tools = [(c["tool"], c["arguments"].get("limit")) for c in stabilization(response)["next_calls"]]
    assert tools == [("read", 2), ("search", None)]  # the window fits the 2-line file
    _all_next_calls_succeed(kernel, response)


# --- with a ref -------------------------------------------------------------------------


def test_a_read_with_a_candidate_ref_of_the_session_is_served(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    response = kernel.execute_read({"mode": "file", "target": match["path"],
                                    "candidate_id": match["candidate_id"]})
    assert response["ok"] and response["text"]
    assert stabilization(response)["reason_codes"] == []


def test_a_read_with_a_bundle_ref_is_served_for_any_path_of_the_bundle(make_kernel) -> None:
    kernel = make_kernel()
    search = kernel.execute_search({"query": "load_config"})
    bundle = stabilization(search)["bundle_id"]
    for path in {m["path"] for m in search["matches"]}:
        assert kernel.execute_read({"mode": "file", "target": path, "bundle_id": bundle})["ok"]
    outside = kernel.execute_read({"mode": "file", "target": "app/server.py",
                                   "bundle_id": bundle})
    _refused(outside, "SEARCH_REF_REQUIRED")
    assert "has no result for app/server.py" in outside["error"]["message"]


def test_a_ref_is_matched_with_the_target_in_any_spelling(make_kernel, workspace_root) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    for spelling in (f"./{match['path']}", str(workspace_root / match["path"])):
        response = kernel.execute_read({"mode": "file", "target": spelling,
                                        "candidate_id": match["candidate_id"]})
        assert stabilization(response)["reason_codes"] == [], spelling


def test_a_candidate_ref_for_another_target_is_refused(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    other = next(p for p in ("app/server.py", "app/big.py") if p != match["path"])
    response = _refused(kernel.execute_read({"mode": "file", "target": other,
                                             "candidate_id": match["candidate_id"]}),
                        "CANDIDATE_REF_REQUIRED")
    assert f"refers to {match['path']}" in response["error"]["message"]


def test_an_unknown_candidate_ref_is_refused(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    _refused(kernel.execute_read({"mode": "file", "target": match["path"],
                                  "candidate_id": "cand_0000000000000000"}),
             "CANDIDATE_REF_REQUIRED")


@pytest.mark.parametrize("identity", ["session_id", "connection_id"])
def test_a_ref_from_another_session_is_refused(make_kernel, identity: str) -> None:
    kernel = make_kernel()

    def as_(who: str) -> tuple[dict[str, Any], dict[str, Any]]:
        if identity == "session_id":
            return {"session_id": who}, {}
        return {}, {"connection_id": who}

    args_a, kw_a = as_("agent-a")
    args_b, kw_b = as_("agent-b")
    search = kernel.execute_search({"query": "load_config", **args_a}, **kw_a)
    match = search["matches"][0]
    read = {"mode": "file", "target": match["path"], "candidate_id": match["candidate_id"]}
    assert kernel.execute_read({**read, **args_a}, **kw_a)["ok"]
    # Session b never searched: its refusal says so, and names the foreign ref.
    foreign = kernel.execute_read({**read, **args_b}, **kw_b)
    _refused(foreign, "SEARCH_FIRST_REQUIRED")
    assert "CANDIDATE_REF_REQUIRED" in stabilization(foreign)["reason_codes"]
    # Session b searched something else: the ref is still not its own.
    kernel.execute_search({"query": "serve", **args_b}, **kw_b)
    _refused(kernel.execute_read({**read, **args_b}, **kw_b), "CANDIDATE_REF_REQUIRED")
    bundle_read = {"mode": "file", "target": match["path"],
                   "bundle_id": stabilization(search)["bundle_id"]}
    _refused(kernel.execute_read({**bundle_read, **args_b}, **kw_b), "SEARCH_REF_REQUIRED")


def test_a_foreign_ref_is_refused_even_on_a_precision_sized_read(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel, session_id="a")
    kernel.execute_search({"query": "serve", "session_id": "b"})
    window = {"mode": "snippet", "target": match["path"], "start_line": 1, "end_line": 5,
              "session_id": "b"}
    response = _refused(kernel.execute_read({**window, "candidate_id": match["candidate_id"]}),
                        "CANDIDATE_REF_REQUIRED")
    assert {"tool": "read", "arguments": window} in stabilization(response)["next_calls"]
    _all_next_calls_succeed(kernel, response)


# --- precision reads ------------------------------------------------------------------


@pytest.mark.parametrize("searched", [False, True])
def test_a_200_line_snippet_is_served_without_a_ref_and_201_lines_are_refused(
        make_kernel, searched: bool) -> None:
    kernel = make_kernel()
    if searched:
        _first_match(kernel)
    ok = kernel.execute_read({"mode": "snippet", "target": "app/big.py", "start_line": 101,
                              "end_line": 300})
    assert ok["ok"] and stabilization(ok)["reason_codes"] == []
    assert ok["text"].count("\n") == 200
    wide = kernel.execute_read({"mode": "snippet", "target": "app/big.py", "start_line": 101,
                                "end_line": 301})
    code = "SEARCH_REF_REQUIRED" if searched else "SEARCH_FIRST_REQUIRED"
    _refused(wide, code)
    assert "REFGATE_RANGE_TOO_WIDE" in stabilization(wide)["reason_codes"]
    assert "spans 201" in wide["error"]["message"]
    windows = [c["arguments"] for c in stabilization(wide)["next_calls"] if c["tool"] == "read"]
    assert [(w["start_line"], w["end_line"]) for w in windows] == [(101, 300), (301, 301)]
    _all_next_calls_succeed(kernel, wide)


def test_a_200_line_file_range_is_served_and_201_lines_are_refused(make_kernel) -> None:
    kernel = make_kernel()
    ok = kernel.execute_read({"mode": "file", "target": "app/big.py", "offset": 10,
                              "limit": 200})
    assert ok["ok"] and ok["text"].count("\n") == 200
    wide = _refused(kernel.execute_read({"mode": "file", "target": "app/big.py", "offset": 10,
                                         "limit": 450}), "SEARCH_FIRST_REQUIRED")
    windows = [c["arguments"] for c in stabilization(wide)["next_calls"] if c["tool"] == "read"]
    # 450 lines from offset 10: the last window holds the 40 lines the file has left.
    assert [(w["offset"], w["limit"]) for w in windows] == [(10, 200), (210, 200), (410, 40)]
    _all_next_calls_succeed(kernel, wide)


def test_context_lines_count_towards_the_precision_cap(make_kernel) -> None:
    kernel = make_kernel()
    base = {"mode": "snippet", "target": "app/big.py", "start_line": 101, "end_line": 290}
    assert kernel.execute_read({**base, "context_lines": 5})["ok"]
    wide = _refused(kernel.execute_read({**base, "context_lines": 6}), "SEARCH_FIRST_REQUIRED")
    assert "spans 202" in wide["error"]["message"]
    _all_next_calls_succeed(kernel, wide)


def test_the_precision_cap_is_a_setting(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"max_range_lines": 50}})
    assert kernel.execute_read({"mode": "file", "target": "app/big.py", "limit": 50})["ok"]
    assert not kernel.execute_read({"mode": "file", "target": "app/big.py", "limit": 51})["ok"]


def test_a_snippet_without_end_line_is_one_line_and_a_precision_read(make_kernel) -> None:
    kernel = make_kernel()
    one = kernel.execute_read({"mode": "snippet", "target": "app/big.py", "start_line": 100})
    assert one["ok"] and one["text"] == "value_100 = 100\n"
    assert kernel.execute_read({"mode": "snippet", "target": "app/big.py", "start_line": 300,
                                "context_lines": 99})["ok"]
    wide = kernel.execute_read({"mode": "snippet", "target": "app/big.py", "start_line": 300,
                                "context_lines": 100})
    _refused(wide, "SEARCH_FIRST_REQUIRED")
    windows = [c["arguments"] for c in stabilization(wide)["next_calls"] if c["tool"] == "read"]
    assert [(w["start_line"], w["end_line"]) for w in windows] == [(200, 399), (400, 400)]
    _all_next_calls_succeed(kernel, wide)


def test_windows_stay_inside_the_file(make_kernel) -> None:
    kernel = make_kernel()
    _first_match(kernel)
    file_read = _refused(kernel.execute_read({"mode": "file", "target": "app/big.py",
                                              "offset": 100, "limit": 1000}),
                         "SEARCH_REF_REQUIRED")
    windows = [c["arguments"] for c in stabilization(file_read)["next_calls"]
               if c["tool"] == "read"]
    assert [(w["offset"], w["limit"]) for w in windows] == [(100, 200), (300, 150)]
    snippet = _refused(kernel.execute_read({"mode": "snippet", "target": "app/big.py",
                                            "start_line": 400, "end_line": 900}),
                       "SEARCH_REF_REQUIRED")
    windows = [c["arguments"] for c in stabilization(snippet)["next_calls"]
               if c["tool"] == "read"]
    assert [(w["start_line"], w["end_line"]) for w in windows] == [(400, 450)]
    _all_next_calls_succeed(kernel, file_read)
    _all_next_calls_succeed(kernel, snippet)


# --- entrypoints, modes, policy ---------------------------------------------------------


def test_deprecated_wrappers_go_through_the_gate(make_kernel) -> None:
    kernel = make_kernel()
    refused = kernel.execute_read({"path": "app/config.py"}, entrypoint="read_file")
    _refused(refused, "SEARCH_FIRST_REQUIRED")
    for call in stabilization(refused)["next_calls"]:
        assert call["tool"] in {"search", "read"}  # the wrapper's call, proposed as read
    _all_next_calls_succeed(kernel, refused)
    served = kernel.execute_read({"path": "app/big.py", "start_line": 1, "end_line": 20},
                                 entrypoint="get_snippet")
    assert served["ok"]


def test_a_symbol_read_is_served_with_a_ref_naming_the_symbol(make_kernel) -> None:
    kernel = make_kernel()
    match = _first_match(kernel)
    kernel_code = kernel.execute_read({"mode": "symbol", "target": "load_config",
                                       "candidate_id": match["candidate_id"]})
    # The gate let it through: whatever the engine answers, it is not a refgate refusal.
    assert not set(stabilization(kernel_code)["reason_codes"]) & {
        "SEARCH_FIRST_REQUIRED", "SEARCH_REF_REQUIRED", "CANDIDATE_REF_REQUIRED"}
    unrelated = kernel.execute_read({"mode": "symbol", "target": "serve",
                                     "candidate_id": match["candidate_id"]})
    _refused(unrelated, "CANDIDATE_REF_REQUIRED")
    no_ref = _refused(kernel.execute_read({"mode": "symbol", "target": "serve"}),
                      "SEARCH_REF_REQUIRED")
    assert {"tool": "search", "arguments": {"query": "serve", "kind": "symbol"}} in \
        stabilization(no_ref)["next_calls"]


def test_warn_policy_serves_the_read_with_the_same_codes(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"policy": "warn"}})
    response = kernel.execute_read({"mode": "file", "target": "app/config.py"})
    assert response["ok"] and response["text"]
    block = stabilization(response)
    assert block["reason_codes"] == ["SEARCH_FIRST_REQUIRED"]
    assert any(GUIDANCE in warning for warning in block["warnings"])
    assert block["next_calls"][0]["tool"] == "search"


def test_modes_outside_gated_modes_pass(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"gated_modes": ["symbol"]}})
    response = kernel.execute_read({"mode": "file", "target": "app/config.py"})
    assert response["ok"] and stabilization(response)["reason_codes"] == []
