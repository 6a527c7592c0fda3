"""``bench/search_quality.py``: its smoke run works, and it scores ranks as it says."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_modules import load_bench

quality = load_bench("search_quality")


def test_the_smoke_run_prints_every_arm_and_the_targets(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
        pytest.importorskip(policy, reason="the bench runs the default policies")
    assert quality.main(["--smoke"]) == 0
    out = capsys.readouterr().out
    for label in ("sari definition", "rg words", "rg best word", "p50 latency", "targets:"):
        assert label in out


def test_the_smoke_run_on_an_index_parsed_on_demand_scores_as_the_eager_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
        pytest.importorskip(policy, reason="the bench runs the default policies")
    scores = []
    for parse in ("eager", "on-demand"):
        assert quality.main(["--smoke", "--parse", parse]) == 0
        out = capsys.readouterr().out
        scores.append([line for line in out.splitlines() if line.startswith(("concept", "identifier"))])
    assert scores[0] and scores[0] == scores[1]


def test_the_file_rank_counts_distinct_files_and_stops_at_ten() -> None:
    answers = (quality.Answer("b.py"),)
    assert quality.file_rank(["a.py", "a.py", "b.py"], answers) == 2
    assert quality.file_rank([f"{n}.py" for n in range(10)] + ["b.py"], answers) is None


def test_a_hit_counts_for_a_definition_when_it_lies_inside_it(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("class A:\n    @staticmethod\n    def f():\n"
                                   "        return 1\n\n\ndef g():\n    pass\n", encoding="utf-8")
    answers = [quality.Answer("m.py", "A.f")]
    assert quality.definition_rank([("m.py", 7, None), ("m.py", 2, None)], tmp_path,
                                   answers) == 2
    assert quality.definition_rank([("m.py", 7, None)], tmp_path, answers) is None


def test_every_written_answer_names_a_definition_of_its_sdist() -> None:
    corpora, queries = quality.load_set("tuning")
    kinds = {query.kind for query in queries}
    assert {"concept", "identifier"} <= kinds and set(corpora) >= {q.corpus for q in queries}
    assert sum(query.kind == "concept" for query in queries) >= 40
    assert sum(query.kind == "identifier" for query in queries) >= 20


def test_the_held_out_set_is_its_own_libraries_and_all_joins_both() -> None:
    tuning, _ = quality.load_set("tuning")
    held_out, queries = quality.load_set("heldout")
    assert not set(tuning) & set(held_out)
    assert sum(query.kind == "concept" for query in queries) >= 20
    assert sum(query.kind == "identifier" for query in queries) >= 10
    assert all(query.corpus in held_out for query in queries)
    both, every = quality.load_set("tuning,heldout")
    assert set(both) == set(tuning) | set(held_out)
    assert len(every) == len(quality.load_set("tuning")[1]) + len(queries)


def test_every_set_has_libraries_of_its_own_and_all_joins_them() -> None:
    seen: set[str] = set()
    for name in quality.QUERY_SETS:
        corpora, queries = quality.load_set(name)
        assert not seen & set(corpora), f"{name} reuses a library of another set"
        assert {query.corpus for query in queries} <= set(corpora)
        seen |= set(corpora)
    assert set(quality.load_set("all")[0]) == seen
    with pytest.raises(Exception, match="unknown query set"):
        quality.load_set("tuning,nosuch")


def test_every_set_says_what_was_done_with_it() -> None:
    for name in quality.QUERY_SETS:
        assert quality.set_role(name) in ("tuning", "validation", "held-out")


def test_a_set_written_for_libraries_never_seen_has_enough_queries_per_library() -> None:
    corpora, queries = quality.load_set("unseen")
    for corpus in corpora:
        mine = [query for query in queries if query.corpus == corpus]
        assert sum(query.kind == "concept" for query in mine) >= 40
        assert sum(query.kind == "identifier" for query in mine) >= 20
        assert all(answer.symbol for query in mine for answer in query.answers
                   if "_abnf" not in answer.path)


def test_ripgrep_s_words_weigh_a_rare_word_above_a_common_one() -> None:
    rg = load_bench("search_quality_rg")
    lengths = {"big.py": 400, "small.py": 40, **{f"f{n}.py": 100 for n in range(20)}}
    common = {"big.py": 30, **{f"f{n}.py": 2 for n in range(20)}}  # in every file
    rare = {"small.py": 2}
    scores = rg.bm25_scores([common, rare], lengths)
    assert rg.ranked_files(scores)[0] == "small.py"
    # the counts summed put the long file first
    assert rg.ranked_files({p: common.get(p, 0) + rare.get(p, 0) for p in lengths})[0] == "big.py"


def test_prose_first_is_a_document_before_any_code() -> None:
    assert quality.prose_first(["docs/reload.rst", "pkg/reload.py"])
    assert quality.prose_first(["LICENSE", "pkg/reload.py"])
    assert not quality.prose_first(["pkg/reload.py", "docs/reload.rst"])
