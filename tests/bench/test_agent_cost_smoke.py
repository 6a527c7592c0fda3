"""``bench/agent_cost.py --smoke``: three sessions in every arm, and the rules every arm keeps:
no arm is told a line range, a repeated Read is answered "file unchanged", the careful agent
reads a long file only around what its search showed, and every needed line arrives."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from bench_modules import load_bench

from sari_core.costmodel import tokens

agent_cost = load_bench("agent_cost")
for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
    pytest.importorskip(policy, reason="the bench's policies arm runs the four default policies")
native = importlib.import_module("agent_cost_native")  # the bench folder is on the path now
corpora = importlib.import_module("agent_cost_corpora")
scripts = importlib.import_module("replay_scripts")

try:
    native.rg_executable()
except RuntimeError as missing:
    pytest.skip(str(missing), allow_module_level=True)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return agent_cost.measure(smoke=tmp_path_factory.mktemp("smoke"))


def test_every_arm_delivers_every_needed_line_of_every_session(smoke: dict) -> None:
    assert len(smoke["sessions"]) == 3
    for arm in agent_cost.ARMS:
        total = smoke["total"][arm]
        assert total["needed"] > 0 and total["delivered"] == total["needed"], arm


def test_the_careful_agent_reads_far_less_than_the_whole_file_agent(smoke: dict) -> None:
    assert smoke["total"]["careful"]["tokens"] < smoke["total"]["whole-file"]["tokens"] / 2


def test_the_fewest_calls_floor_is_below_every_arms_cost(smoke: dict) -> None:
    fewest = smoke["total"]["fewest"]
    # json-indent's script: a search, then whole-file reads of json, json.encoder (twice)
    # and json.decoder, of which only json.decoder holds nothing the task needs.
    indent = next(row for row in smoke["sessions"] if row["session"] == "json-indent")
    assert indent["fewest"]["calls"] == 2
    for arm in agent_cost.ARMS:
        assert fewest["cached"] < smoke["total"][arm]["cached"], arm
        assert fewest["calls"] < smoke["total"][arm]["turns"], arm


def test_both_lines_are_reported_on_top_and_in_place(smoke: dict) -> None:
    policies = smoke["total"]["policies"]
    assert policies["in_place_cached"] < policies["cached"]
    assert smoke["definitions"]["in_place_of"] == agent_cost.CLIENT_FILE_TOOLS


def _session(tmp_path: Path, *steps: object, needs: tuple = (("textwrap", "dedent"),)):
    corpus = corpora.smoke_corpus(tmp_path)
    session = scripts.Session("probe", "probe", needs, steps)  # type: ignore[arg-type]
    return corpora.Corpus("probe", corpus.root, (session,), False), session


def test_a_repeated_read_of_an_unchanged_file_is_answered_file_unchanged(tmp_path: Path) -> None:
    corpus, session = _session(tmp_path)
    agent = native.NativeAgent(corpus, session)
    agent.read("heapq.py", 10, 20)
    agent.read("heapq.py", 10, 20)
    assert agent.tally.unchanged == 1
    assert agent.tally.result_tokens[1] == tokens(native.FILE_UNCHANGED)


def test_a_definition_the_agent_was_not_shown_is_searched_for_before_it_is_read(
        tmp_path: Path) -> None:
    """No arm reads a range it was not shown: with nothing searched, reading ``dedent``
    takes a search first, then the lines around the hit."""
    corpus, session = _session(tmp_path, scripts.ReadAround("textwrap", "dedent"))
    agent = native.CarefulAgent(corpus, session)
    tally = agent.run()
    assert tally.needed_delivered == tally.needed
    assert len(tally.result_tokens) >= 2  # the grep, then the read
    assert "textwrap.py" in agent.view.hits


def test_the_careful_agent_reads_a_long_file_only_around_the_hits_it_saw(tmp_path: Path) -> None:
    corpus, session = _session(tmp_path, scripts.Search("def dedent"),
                               scripts.ReadFile("textwrap"))
    agent = native.CarefulAgent(corpus, session)
    agent.run()
    total = len(corpus.text_of("textwrap.py").splitlines())
    assert total > native.SHORT_FILE
    assert len(agent.view.shown["textwrap.py"]) < total / 3


def test_a_scripted_read_of_lines_already_shown_is_skipped(tmp_path: Path) -> None:
    corpus, session = _session(tmp_path, scripts.ReadFile("textwrap"),
                               scripts.ReadAround("textwrap", "dedent"))
    tally = native.NativeAgent(corpus, session).run()
    assert tally.skipped == 1 and len(tally.result_tokens) == 1
