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


def test_a_whole_read_after_a_search_is_narrowed_to_the_definition(tmp_path: Path) -> None:
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
