"""The ``+ hooks`` arms of ``bench/agent_cost.py``: each native call goes through the hook
path and the agent obeys the answer as Claude Code does."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from bench_modules import load_bench

agent_cost = load_bench("agent_cost")
for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
    pytest.importorskip(policy, reason="the hooks arms run the four default policies")
native = importlib.import_module("agent_cost_native")  # the bench folder is on the path now
hooks = importlib.import_module("agent_cost_hooks")
corpora = importlib.import_module("agent_cost_corpora")
scripts = importlib.import_module("replay_scripts")

try:
    native.rg_executable()
except RuntimeError as missing:
    pytest.skip(str(missing), allow_module_level=True)


def _run(tmp_path: Path, agent_class: type, *steps: object) -> object:
    corpus = corpora.smoke_corpus(tmp_path)
    session = scripts.Session("probe", "probe", (("textwrap", "dedent"),), steps)  # type: ignore[arg-type]
    corpus = corpora.Corpus("probe", corpus.root, (session,), False)
    kernel = agent_cost.open_kernel(corpus.root, agent_cost.policy_plugins())
    try:
        agent = agent_class(corpus, session, kernel)
        agent.run()
        return agent
    finally:
        kernel.close()


@pytest.fixture
def no_bodies() -> object:
    """The hooks without the bodies a definition search shows (then restored)."""
    from sari_core.native import definitions

    kept = (definitions.DEFINITIONS_SHOWN, definitions.DEFINITION_LINES,
            definitions.CALLEES_SHOWN, definitions.CALLEE_LINES)
    hooks.use_design("no-bodies")
    yield
    hooks.use_design("as-built")
    (definitions.DEFINITIONS_SHOWN, definitions.DEFINITION_LINES,
     definitions.CALLEES_SHOWN, definitions.CALLEE_LINES) = kept


def test_a_search_for_a_definition_shows_its_body_and_the_read_is_skipped(
        tmp_path: Path) -> None:
    agent = _run(tmp_path, hooks.HookedNativeAgent, scripts.Search("def dedent"),
                 scripts.ReadFile("textwrap"))
    tally = agent.tally  # type: ignore[attr-defined]
    assert agent.hooked["guide"] == 1 and len(tally.result_tokens) == 1  # type: ignore[attr-defined]
    assert tally.skipped == 1 and tally.needed_delivered == tally.needed


def test_a_whole_read_after_a_search_is_narrowed_to_the_definition(tmp_path: Path,
                                                                   no_bodies: object) -> None:
    agent = _run(tmp_path, hooks.HookedNativeAgent, scripts.Search("def dedent"),
                 scripts.ReadFile("textwrap"))
    assert agent.hooked["narrow"] == 1  # type: ignore[attr-defined]
    total = len(agent.corpus.text_of("textwrap.py").splitlines())  # type: ignore[attr-defined]
    shown = agent.view.shown["textwrap.py"]  # type: ignore[attr-defined]
    assert len(shown) < total / 4  # the client read only the lines the hook gave
    tally = agent.tally  # type: ignore[attr-defined]
    assert tally.needed_delivered == tally.needed
    plain = native.NativeAgent(agent.corpus, agent.session)  # type: ignore[attr-defined]
    plain.run()
    assert sum(tally.result_tokens) < sum(plain.tally.result_tokens) / 3


def test_a_denied_read_shows_the_reason_and_the_agent_reads_on(tmp_path: Path) -> None:
    # heapq.py was never searched: a whole read of it is denied with its outline.
    agent = _run(tmp_path, hooks.HookedNativeAgent, scripts.Search("def dedent"),
                 scripts.ReadFile("heapq"), scripts.ReadAround("textwrap", "dedent"))
    tally = agent.tally  # type: ignore[attr-defined]
    assert tally.refused == 1 and agent.hooked["deny"] == 1  # type: ignore[attr-defined]
    assert ("heapq.py", "merge") in agent.view.told  # type: ignore[attr-defined]
    assert tally.needed_delivered == tally.needed


def test_no_arm_reads_a_definition_its_search_showed_whole(tmp_path: Path) -> None:
    """The same rule for every arm: a definition the search made to find it showed whole (a
    stated range, each line shown) is not read again; only the hooks' search shows it."""
    steps = (scripts.Search("def dedent"), scripts.ReadAround("textwrap", "indent"))
    hooked = _run(tmp_path, hooks.HookedCarefulAgent, *steps)
    tally = hooked.tally  # type: ignore[attr-defined]
    assert tally.skipped == 1 and len(tally.result_tokens) == 2  # two searches, no read
    corpus = hooked.corpus  # type: ignore[attr-defined]
    session = scripts.Session("probe", "probe", (("textwrap", "dedent"),), steps)  # type: ignore[arg-type]
    plain = native.CarefulAgent(corpus, session)
    plain.run()
    assert plain.tally.skipped == 0 and len(plain.tally.result_tokens) >= 3  # it reads it
