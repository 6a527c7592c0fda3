"""Relevance Guard: reads outside the latest search's top-K are flagged, with stable alternatives."""

from __future__ import annotations

from typing import Any

from relevance_workspace import ranked_paths

from sari_core import Kernel
from sari_core.rendering import render
from sari_core.testing import run_next_call, stabilization

CODE = "LOW_RELEVANCE_OUTSIDE_TOPK"
EXCLUDED = "RELEVANCE_EXCLUDED_PATH"
LEAD = "Not among the top 10 results of the latest search "


def _codes(response: dict[str, Any]) -> list[str]:
    return stabilization(response)["reason_codes"]  # type: ignore[no-any-return]


def _read(kernel: Kernel, target: str, **extra: Any) -> dict[str, Any]:
    return kernel.execute_read({"mode": "file", "target": target, **extra})


# --- hit and miss ---------------------------------------------------------------------


def test_a_read_among_the_top_results_is_not_flagged(make_kernel) -> None:
    kernel = make_kernel()
    search = kernel.execute_search({"query": "load_config"})
    for path in ranked_paths(search):
        response = _read(kernel, path)
        assert response["ok"]
        assert _codes(response) == [] and stabilization(response)["warnings"] == []
        assert "annotations" not in stabilization(response)


def test_a_read_outside_the_top_results_is_warned_with_ranked_alternatives(make_kernel) -> None:
    kernel = make_kernel()
    ranked = ranked_paths(kernel.execute_search({"query": "load_config"}))
    assert "app/server.py" not in ranked
    response = _read(kernel, "app/server.py")
    assert response["ok"] and response["text"], "soft by default: the read is served"
    block = stabilization(response)
    assert block["reason_codes"] == [CODE]
    [warning] = block["warnings"]
    # One sentence: why (not among the latest search's top 10) and where to look instead;
    # the read's own header names the file.
    assert warning == LEAD + "'load_config': " + ", ".join(ranked[:3]) + "."
    assert block["annotations"]["relevance"] == {"alternatives": ranked[:3]}
    assert [c["arguments"]["target"] for c in block["next_calls"]] == ranked[:3]
    assert block["suggested_next_action"] == (f"Read {ranked[0]} instead (top result of the "
                                              "latest search 'load_config').")
    for call in block["next_calls"]:
        served = run_next_call(kernel, call)
        assert served["ok"] and _codes(served) == [], call


def test_alternatives_are_stable_across_fresh_kernels_and_repeats(make_kernel) -> None:
    blocks = []
    for _ in range(2):
        kernel = make_kernel()
        kernel.execute_search({"query": "handle_request", "limit": 50})
        blocks.append(stabilization(_read(kernel, "app/cli.py")))
        kernel.execute_search({"query": "handle_request", "limit": 50})
        blocks.append(stabilization(_read(kernel, "app/cli.py")))
    for block in blocks:
        block.pop("metrics_snapshot")
    assert all(block == blocks[0] for block in blocks)
    assert len(blocks[0]["annotations"]["relevance"]["alternatives"]) == 3


def test_the_warning_is_said_once_per_target_and_search(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_search({"query": "handle_request", "limit": 50})
    first = _read(kernel, "app/cli.py")
    again = _read(kernel, "app/cli.py")
    assert CODE in _codes(first)
    assert again["ok"] and CODE not in _codes(again)
    assert "Not among the top" not in render(again)
    kernel.execute_search({"query": "handle_request", "limit": 50})  # a new search re-arms it
    assert CODE in _codes(_read(kernel, "app/cli.py"))


def test_the_alternatives_are_given_once_per_search(make_kernel) -> None:
    kernel = make_kernel()
    ranked = ranked_paths(kernel.execute_search({"query": "handle_request", "limit": 50}))
    first = stabilization(_read(kernel, ranked[10]))
    assert first["annotations"]["relevance"]["alternatives"] and first["next_calls"]
    second = stabilization(_read(kernel, ranked[11]))
    assert second["reason_codes"] == [CODE]
    assert second["warnings"] == [
        "Not among the top 10 results of the latest search 'handle_request' either."]
    assert second["next_calls"] == []
    kernel.execute_search({"query": "handle_request", "limit": 50})  # a new search: in full
    assert stabilization(_read(kernel, ranked[11]))["next_calls"]


def test_k_is_ten_distinct_paths_of_the_latest_search(make_kernel) -> None:
    kernel = make_kernel()
    ranked = ranked_paths(kernel.execute_search({"query": "handle_request", "limit": 50}))
    assert len(ranked) >= 12
    assert _codes(_read(kernel, ranked[9])) == []
    assert _codes(_read(kernel, ranked[10])) == [CODE]
    assert _codes(_read(kernel, ranked[11])) == [CODE]


def test_k_is_a_setting(make_kernel) -> None:
    kernel = make_kernel(settings={"relevance": {"top_k": 2, "max_alternatives": 1}})
    ranked = ranked_paths(kernel.execute_search({"query": "handle_request", "limit": 50}))
    assert _codes(_read(kernel, ranked[1])) == []
    response = _read(kernel, ranked[2])
    assert _codes(response) == [CODE]
    assert stabilization(response)["annotations"]["relevance"]["alternatives"] == ranked[:1]


def test_a_target_in_any_spelling_is_compared_as_a_workspace_path(
        make_kernel, workspace_root) -> None:
    kernel = make_kernel()
    top = ranked_paths(kernel.execute_search({"query": "load_config"}))[0]
    for spelling in (f"./{top}", str(workspace_root / top)):
        assert _codes(_read(kernel, spelling)) == [], spelling


def test_no_search_yet_means_no_baseline_and_no_warning(make_kernel) -> None:
    kernel = make_kernel()
    assert _codes(_read(kernel, "app/server.py")) == []


def test_a_search_without_results_leaves_no_baseline(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_search({"query": "load_config"})
    assert kernel.execute_search({"query": "no such text anywhere"})["matches"] == []
    assert _codes(_read(kernel, "app/server.py")) == []


def test_the_latest_search_replaces_the_previous_one(make_kernel) -> None:
    kernel = make_kernel()
    first = ranked_paths(kernel.execute_search({"query": "load_config"}))
    kernel.execute_search({"query": "serve"})
    response = _read(kernel, first[0])
    assert _codes(response) == [CODE]
    assert "the latest search 'serve'" in stabilization(response)["warnings"][0]
    assert _codes(_read(kernel, "app/server.py")) == []


def test_each_session_has_its_own_baseline(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_search({"query": "load_config", "session_id": "a"})
    assert _codes(_read(kernel, "app/server.py", session_id="a")) == [CODE]
    assert _codes(_read(kernel, "app/server.py", session_id="b")) == []
    assert _codes(_read(kernel, "app/server.py")) == []  # the connection's own session


# --- excluded paths ---------------------------------------------------------------------


def test_a_read_under_an_excluded_folder_is_warned_even_without_a_search(make_kernel) -> None:
    kernel = make_kernel()
    response = _read(kernel, "vendor/lib/helpers.py")
    assert response["ok"]
    assert _codes(response) == [CODE, EXCLUDED]
    [warning] = stabilization(response)["warnings"]
    assert warning == ("Under the excluded path 'vendor/'. Search the project's own code for "
                       "what you need.")


def test_an_excluded_read_after_a_search_gets_alternatives(make_kernel) -> None:
    kernel = make_kernel()
    ranked = ranked_paths(kernel.execute_search({"query": "load_config"}))
    response = _read(kernel, "vendor/lib/helpers.py")
    assert _codes(response) == [CODE, EXCLUDED]
    alternatives = stabilization(response)["annotations"]["relevance"]["alternatives"]
    assert alternatives == [p for p in ranked if not p.startswith("vendor/")][:3]


def test_excluded_paths_are_a_setting_with_folders_and_globs(make_kernel) -> None:
    kernel = make_kernel(settings={"relevance": {"excluded_paths": ["generated/", "*.md"]}})
    assert _codes(_read(kernel, "generated/schema.py")) == [CODE, EXCLUDED]
    assert _codes(_read(kernel, "docs/notes.md")) == [CODE, EXCLUDED]
    assert _codes(_read(kernel, "vendor/lib/helpers.py")) == []


# --- hard mode, modes -------------------------------------------------------------------


def test_hard_mode_refuses_with_alternatives_that_are_served(make_kernel) -> None:
    kernel = make_kernel(settings={"relevance": {"hard": True}})
    ranked = ranked_paths(kernel.execute_search({"query": "load_config"}))
    response = _read(kernel, "app/server.py")
    assert response["ok"] is False
    assert response["error"]["code"] == "LOW_RELEVANCE"
    assert response["error"]["message"].startswith("Not read: app/server.py. " + LEAD)
    assert response["error"]["hint"]
    assert _codes(response) == [CODE]
    next_calls = stabilization(response)["next_calls"]
    assert [c["arguments"]["target"] for c in next_calls] == ranked[:3]
    for call in next_calls:
        assert run_next_call(kernel, call)["ok"]
    assert _read(kernel, ranked[0])["ok"]


def test_symbol_reads_compare_the_symbol_with_the_search(make_kernel) -> None:
    kernel = make_kernel()
    ranked = ranked_paths(kernel.execute_search({"query": "load_config"}))

    def symbol_codes(target: str, **extra: Any) -> list[str]:
        return _codes(kernel.execute_read({"mode": "symbol", "target": target, **extra}))

    assert CODE not in symbol_codes("load_config")  # the query itself
    assert CODE not in symbol_codes("app.config.load_config")  # dotted, last part matches
    assert CODE in symbol_codes("serve")
    # With a path, the path decides.
    assert CODE in symbol_codes("load_config", path="app/server.py")
    assert CODE not in symbol_codes("main", path=ranked[0])


def test_diff_preview_is_not_checked_by_default_but_can_be(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_search({"query": "load_config"})
    diff = {"mode": "diff_preview", "target": "app/server.py"}
    assert CODE not in _codes(kernel.execute_read(diff))
    strict = make_kernel(settings={"relevance": {"checked_modes": ["diff_preview"]}})
    strict.execute_search({"query": "load_config"})
    assert CODE in _codes(strict.execute_read(diff))


def test_alternatives_carry_the_session_id(make_kernel) -> None:
    kernel = make_kernel()
    kernel.execute_search({"query": "load_config", "session_id": "s"})
    response = _read(kernel, "app/server.py", session_id="s")
    for call in stabilization(response)["next_calls"]:
        assert call["arguments"]["session_id"] == "s"
        assert _codes(run_next_call(kernel, call)) == []
