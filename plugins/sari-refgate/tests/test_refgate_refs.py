"""Search issues stable candidate and bundle ids, remembered per session, and next_calls."""

from __future__ import annotations

import re
from typing import Any

from refgate_workspace import FILES, build_workspace

from sari_core import Kernel
from sari_core.testing import run_next_call, stabilization
from sari_refgate import RefgatePlugin
from sari_refgate.refs import RefStore

QUERY = {"query": "load_config"}


def _ids(response: dict[str, Any]) -> tuple[list[str], str]:
    return ([match["candidate_id"] for match in response["matches"]],
            stabilization(response)["bundle_id"])


def test_every_match_gets_a_candidate_id_and_the_response_a_bundle_id(make_kernel) -> None:
    response = make_kernel().execute_search(QUERY)
    candidates, bundle = _ids(response)
    assert response["ok"] and len(candidates) >= 2
    assert all(re.fullmatch(r"cand_[0-9a-f]{16}", cid) for cid in candidates)
    assert len(set(candidates)) == len(candidates)
    assert re.fullmatch(r"bndl_[0-9a-f]{16}", bundle)


def test_ids_are_the_same_for_the_same_workspace_and_query_across_fresh_kernels(
        make_kernel) -> None:
    first = make_kernel().execute_search(QUERY)
    second = make_kernel().execute_search(QUERY)
    assert _ids(first) == _ids(second)
    assert stabilization(first)["next_calls"] == stabilization(second)["next_calls"]


def test_ids_do_not_depend_on_the_session_but_on_the_query(make_kernel) -> None:
    kernel = make_kernel()
    in_one = kernel.execute_search({**QUERY, "session_id": "one"})
    in_two = kernel.execute_search({**QUERY, "session_id": "two"})
    assert _ids(in_one) == _ids(in_two)
    other_query = kernel.execute_search({"query": "load_config(", "session_id": "one"})
    assert set(_ids(other_query)[0]).isdisjoint(_ids(in_one)[0])
    assert _ids(other_query)[1] != _ids(in_one)[1]
    as_regex = kernel.execute_search({**QUERY, "kind": "regex", "session_id": "one"})
    assert _ids(as_regex)[1] != _ids(in_one)[1]


def test_another_workspace_gives_other_ids(make_kernel, tmp_path) -> None:
    here = make_kernel().execute_search(QUERY)
    elsewhere_root = tmp_path / "elsewhere"
    elsewhere_root.mkdir()
    with Kernel(build_workspace(elsewhere_root, FILES), plugins=[RefgatePlugin()],
                load_entry_points=False, analytics_sinks=[]) as kernel:
        there = kernel.execute_search(QUERY)
    assert [m["path"] for m in there["matches"]] == [m["path"] for m in here["matches"]]
    assert set(_ids(there)[0]).isdisjoint(_ids(here)[0])


def test_search_next_calls_are_ready_to_run_reads_with_candidate_ids(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_search(QUERY)
    next_calls = stabilization(response)["next_calls"]
    paths = [m["path"] for m in response["matches"]]
    distinct = list(dict.fromkeys(paths))
    assert [call["arguments"]["target"] for call in next_calls] == distinct[:3]
    by_id = {m["candidate_id"]: m for m in response["matches"]}
    for call in next_calls:
        arguments = call["arguments"]
        assert call["tool"] == "read" and arguments["mode"] == "snippet"
        match = by_id[arguments["candidate_id"]]
        assert match["path"] == arguments["target"]
        assert arguments["start_line"] <= match["line"] <= arguments["end_line"]
        served = run_next_call(kernel, call)
        assert served["ok"], served
        assert stabilization(served)["reason_codes"] == []


def test_next_calls_carry_the_session_id_of_the_search(make_kernel) -> None:
    kernel = make_kernel()
    response = kernel.execute_search({**QUERY, "session_id": "agent-7"})
    for call in stabilization(response)["next_calls"]:
        assert call["arguments"]["session_id"] == "agent-7"
        assert run_next_call(kernel, call)["ok"]


def test_refs_are_bounded_per_session_oldest_bundle_expires(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"max_bundles_per_session": 2, "strict": True}})
    first = kernel.execute_search(QUERY)
    old_candidate = first["matches"][0]
    kernel.execute_search({"query": "serve"})
    read = {"mode": "file", "target": old_candidate["path"],
            "candidate_id": old_candidate["candidate_id"]}
    assert kernel.execute_read(read)["ok"]
    kernel.execute_search({"query": "value_7"})  # later searches that do not return the path
    kernel.execute_search({"query": "Notes"})
    refused = kernel.execute_read(read)
    assert not refused["ok"]
    assert refused["error"]["code"] == "CANDIDATE_REF_REQUIRED"
    assert refused["error"]["message"].startswith(
        f"candidate_id {old_candidate['candidate_id']!r} was not issued to this session"), \
        refused["error"]["message"]
    session = kernel.session()
    store = session.namespace("refgate", lambda: RefStore(max_bundles=0))
    assert len(store.bundles) == 2 and store.searches == 4


def test_the_same_search_again_refreshes_its_bundle(make_kernel) -> None:
    kernel = make_kernel(settings={"refgate": {"max_bundles_per_session": 2, "strict": True}})
    first = kernel.execute_search(QUERY)
    kernel.execute_search({"query": "serve"})
    kernel.execute_search(QUERY)  # now the newest again
    kernel.execute_search({"query": "json"})  # evicts "serve", not load_config
    match = first["matches"][0]
    assert kernel.execute_read({"mode": "file", "target": match["path"],
                                "candidate_id": match["candidate_id"]})["ok"]


def test_one_session_searched_and_read_from_many_threads_keeps_every_ref(make_kernel) -> None:
    from concurrent.futures import ThreadPoolExecutor

    kernel = make_kernel(settings={"refgate": {"max_bundles_per_session": 64}})
    queries = ["load_config", "serve", "json", "port", "settings", "value_1", "main", "path"]

    def search_then_read(query: str) -> bool:
        found = kernel.execute_search({"query": query, "session_id": "shared"})
        match = found["matches"][0]
        read = kernel.execute_read({"mode": "file", "target": match["path"],
                                    "candidate_id": match["candidate_id"],
                                    "session_id": "shared"})
        return bool(read["ok"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(search_then_read, queries * 4))
    assert all(outcomes)
    store = kernel.session("shared").namespace("refgate", lambda: RefStore(max_bundles=0))
    assert store.searches == len(queries) * 4 and len(store.bundles) == len(queries)
