"""Rules that keep ``bench/agent_cost.py`` from favouring any arm: the standard library
without the host's installed packages, same-named definitions kept apart, and a read that
named its lines paid for again when it was answered with something else."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from bench_modules import load_bench

agent_cost = load_bench("agent_cost")
corpora = importlib.import_module("agent_cost_corpora")  # the bench folder is on the path now
view_module = importlib.import_module("agent_cost_view")
agents = importlib.import_module("agent_cost_agents")


def test_the_stdlib_corpus_leaves_out_the_hosts_installed_packages(tmp_path: Path) -> None:
    source = tmp_path / "python3.x"
    (source / "json").mkdir(parents=True)
    (source / "json" / "__init__.py").write_text("def dumps(obj):\n    return ''\n")
    (source / "site-packages" / "requests").mkdir(parents=True)
    (source / "site-packages" / "requests" / "api.py").write_text("def dumps(x): ...\n")
    (source / "json" / "__pycache__").mkdir()
    (source / "json" / "__pycache__" / "__init__.cpython.pyc").write_bytes(b"\0")
    tree = corpora.stdlib_tree(source, tmp_path / "cache")
    found = sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file())
    assert found == ["json/__init__.py"]
    assert corpora.stdlib_tree(source, tmp_path / "cache") == tree  # made once


class _Corpus:
    def __init__(self, text: str) -> None:
        self.text = text

    def text_of(self, path: str) -> str:
        return self.text

    def has_file(self, path: str) -> bool:
        return path == "m.py"


TWO_RUNS = "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n" \
           "        return 2\n"


def test_same_named_definitions_are_told_apart() -> None:
    view = view_module.View(_Corpus(TWO_RUNS))
    view.see_outline("m.py", "m.py outline\nclass A 1-3\nmethod A.run 2-3\nclass B 6-8\n"
                             "method B.run 7-8")
    assert view.start_of("m.py", "B.run", (7, 8)) == 7
    assert view.end_of("m.py", "B.run", (7, 8)) == 8
    assert view.start_of("m.py", "A.run", (2, 3)) == 2
    # Stated without the class: the agent tells them apart by where it is reading.
    plain = view_module.View(_Corpus(TWO_RUNS))
    plain.see_outline("m.py", "m.py outline\nmethod run 2-3\nmethod run 7-8")
    assert plain.start_of("m.py", "B.run", (7, 8)) == 7


class _OutliningKernel:
    """A kernel whose read of named lines answers an outline the first time."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def execute_read(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(arguments)
        if len(self.calls) == 1:
            return {"ok": True, "mode": "outline", "text": "m.py outline\nclass B 6-8",
                    "meta": {"path": "m.py", "mode": "outline"}}
        return {"ok": True, "mode": "snippet", "text": "7\t    def run(self):\n8\t        return 2",
                "meta": {"path": "m.py", "start_line": 7, "end_line": 8}}


def test_a_read_naming_its_lines_answered_with_an_outline_pays_the_read_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    agent = agents.SariAgent.__new__(agents.SariAgent)
    agent.kernel = _OutliningKernel()
    agent.sid = "probe"
    agent.view = view_module.View(_Corpus(TWO_RUNS))
    agent.tally = agents.Tally()
    agent.printed_next = {}
    agent.offset_skips = False
    monkeypatch.setattr(agent, "shown", lambda response: response["text"])
    agent.call_read({"mode": "snippet", "target": "m.py", "start_line": 7, "end_line": 8})
    assert len(agent.tally.result_tokens) == 2  # the outline, then the lines asked for
    assert agent.kernel.calls[1] == {"mode": "snippet", "target": "m.py", "start_line": 7,
                                     "end_line": 8, "session_id": "probe"}
    assert agent.view.shown["m.py"] == {7, 8}


OVERLOADED = """import typing as t


@t.overload
def command(name: t.Callable) -> int: ...


@t.overload
def command(name: str) -> str: ...


def command(name):
    if callable(name):
        return 1
    return name
"""


def test_an_overloaded_function_is_its_implementation(tmp_path: Path) -> None:
    (tmp_path / "decorators.py").write_text(OVERLOADED)
    corpus = corpora.Corpus("probe", tmp_path, (), True)
    assert corpus.definition_lines("decorators.py", "command") == (12, 15)
