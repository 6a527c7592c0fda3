"""No argument buys unbounded work: long paths, huge queries and regex programs are refused
at the boundary, in linear time, with INVALID_ARGS (or PATH_OUTSIDE_WORKSPACE) and a hint.

The time bounds are hang detectors for a loaded machine, far above what the bounded
work takes (a few milliseconds); before these bounds, each call below took from
seconds to minutes, or failed as an internal error.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from served_http import make_git_workspace

from sari_core import Kernel
from sari_core.engine import Workspace
from sari_core.engine.search import work_budget
from sari_core.errors import SariError
from sari_core.models import SearchCall

SecretguardPlugin = pytest.importorskip("sari_secretguard").SecretguardPlugin

ANSWER_BOUND_SECONDS = 10.0


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    root = make_git_workspace(tmp_path / "ws")
    (root / "wide.txt").write_text(("hello world, nothing to see " * 4 + "\n") * 600, encoding="utf-8")
    with Kernel(roots=[root], plugins=[SecretguardPlugin()], load_entry_points=False,
                analytics_sinks=[]) as served:
        served.engine.wait_for_index(60)
        yield served


def _timed(call: object, *args: object) -> tuple[dict[str, object], float]:
    started = time.monotonic()
    response = call(*args)  # type: ignore[operator]
    return response, time.monotonic() - started


def _error(response: dict[str, object]) -> dict[str, object]:
    assert response["ok"] is False, response
    error = response["error"]
    assert isinstance(error, dict)
    return error


@pytest.mark.parametrize("target", ["../" * 10000, "a/" * 20000 + "x"])
def test_a_long_path_is_refused_before_any_policy_matches_it(kernel: Kernel, target: str
                                                             ) -> None:
    response, took = _timed(kernel.execute_read, {"mode": "file", "target": target})
    assert took < ANSWER_BOUND_SECONDS
    error = _error(response)
    assert error["code"] in ("INVALID_ARGS", "PATH_OUTSIDE_WORKSPACE")
    assert error["hint"]


def test_a_path_climbing_out_is_refused_before_policies_see_it(kernel: Kernel) -> None:
    error = _error(kernel.execute_read({"mode": "file", "target": "src/../../etc/passwd"}))
    assert error["code"] == "PATH_OUTSIDE_WORKSPACE"


def test_a_path_is_normalised_once_and_still_served(kernel: Kernel) -> None:
    response = kernel.execute_read({"mode": "file", "target": "./src//app.py"})
    assert response["ok"] is True, response


def test_a_name_longer_than_any_file_name_is_refused(kernel: Kernel) -> None:
    error = _error(kernel.execute_mutation("write", {"path": "x" * 300, "content": "a"}))
    assert error["code"] == "INVALID_ARGS"
    assert "255" in str(error["message"])


def test_secret_globs_match_a_path_of_thousands_of_parts_in_linear_time() -> None:
    from sari_secretguard.patterns import matches_glob
    from sari_secretguard.settings import DEFAULT_BLOCKED_GLOBS

    started = time.monotonic()
    assert not matches_glob("../" * 10000, DEFAULT_BLOCKED_GLOBS)
    assert not matches_glob("a/" * 20000, DEFAULT_BLOCKED_GLOBS)
    assert time.monotonic() - started < ANSWER_BOUND_SECONDS
    assert matches_glob("a/" * 100 + "deploy/x.pem", DEFAULT_BLOCKED_GLOBS)
    assert matches_glob("a/" * 100 + ".env", DEFAULT_BLOCKED_GLOBS)


@pytest.mark.parametrize("kind", ["symbol", "text", "regex", "path"])
def test_a_huge_query_is_invalid_args_not_an_internal_error(kernel: Kernel, kind: str) -> None:
    error = _error(kernel.execute_search({"query": "Parser" * 20000, "kind": kind}))
    assert error["code"] == "INVALID_ARGS"
    assert error["hint"]


def test_a_nested_group_bomb_is_refused_at_once(kernel: Kernel) -> None:
    bomb = "(" * 3000 + "a" + ")" * 3000
    response, took = _timed(kernel.execute_search, {"query": bomb, "kind": "regex"})
    assert took < ANSWER_BOUND_SECONDS
    assert _error(response)["code"] == "INVALID_ARGS"


def test_a_regex_program_over_the_size_limit_is_refused_with_a_hint(tmp_path: Path) -> None:
    root = make_git_workspace(tmp_path / "ws")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine, \
            pytest.raises(SariError) as refused:
        engine.search(SearchCall(query=r"(?s).{1,1000}.{1,1000}.{1,1000}b", kind="regex"))
    assert refused.value.code == "INVALID_ARGS"
    assert "instructions" in refused.value.message
    assert "kind='text'" in refused.value.hint
    assert refused.value.details["program_size"] > refused.value.details["max_program_size"]


@pytest.mark.parametrize("pattern", [
    "(" * 1500 + "a" + ")" * 1500,  # under the length limit: runs, without capture groups
    r"((((((((((.*)*)*)*)*)*)*)*)*)*)*",
    r"(.*a){20}",
])
def test_hostile_regexes_under_the_limits_are_answered(kernel: Kernel, pattern: str) -> None:
    response, took = _timed(kernel.execute_search, {"query": pattern, "kind": "regex"})
    assert took < ANSWER_BOUND_SECONDS
    assert response["ok"] is True, response


def _many_matching_files(tmp_path: Path, count: int = 12) -> Path:
    root = make_git_workspace(tmp_path / "ws")
    for number in range(count):
        (root / f"part{number:02}.txt").write_text(f"needle_word {number}\n" + "x" * 1000 + "\n",
                                                   encoding="utf-8")
    # many more files without it, so a regex is checked on the index's candidates (a regex
    # matching a large share of the tree goes to ripgrep, bounded by the deadline alone)
    for number in range(count * 8):
        (root / f"other{number:03}.txt").write_text("nothing here\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("kind", ["text", "regex"])
def test_a_search_past_its_work_budget_answers_with_what_it_found_and_says_so(
        tmp_path: Path, kind: str) -> None:
    root = _many_matching_files(tmp_path)
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        # case-sensitive: every candidate's text is checked (the scan the budget counts)
        call = SearchCall(query="needle_word", kind=kind, case_sensitive=True)
        whole = engine.search(call)
        with work_budget.bounded(seconds=60, scan_bytes=4000):  # about three files
            partial = engine.search(call)
    assert whole.total == 12 and not any("Partial" in note for note in whole.notes)
    assert 0 < partial.total < whole.total
    assert partial.truncated
    assert partial.matches  # what was found is shown
    assert any(note.startswith("Partial search") and "path_glob" in note
               for note in partial.notes)


@pytest.mark.parametrize("pattern", [
    "needle_.*",  # narrowed by the index
    "n.e.d.l.e",  # no literal to narrow it: ripgrep lists the files
])
def test_a_search_past_its_deadline_answers_at_once(tmp_path: Path, pattern: str) -> None:
    root = _many_matching_files(tmp_path)
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        engine.ensure_index(progress=False)
        with work_budget.bounded(seconds=0):
            late = engine.search(SearchCall(query=pattern, kind="regex"))
    assert late.total == 0 and late.truncated
    assert any("deadline" in note for note in late.notes)


@pytest.mark.parametrize("walker", ["rg", "python"])
def test_a_scan_before_the_index_stops_at_the_deadline_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walker: str) -> None:
    from sari_core.engine.scan import scan
    from sari_core.engine.scan.scan_search import scan_search

    if walker == "python":
        monkeypatch.setattr(scan, "ripgrep", lambda: None)
    root = _many_matching_files(tmp_path)
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        whole = scan_search(engine.searcher, engine.scan, SearchCall(query="needle_word"))
        with work_budget.bounded(seconds=0):
            late = scan_search(engine.searcher, engine.scan,
                               SearchCall(query="needle_.*", kind="regex"))
    assert whole.total == 12 and len(whole.notes) == 1
    assert late.total < 12 and late.truncated
    assert any("deadline" in note for note in late.notes)
