"""A next call moves forward: it never repeats a call that just failed for the same reason.

A missing file leads to a path search for its name whatever policies are installed (the
policies' windows and continuations of a read the engine refused would fail again); and
every next call a refusal or a reason code proposes, followed, is not refused again for the
same reason on the same target.
"""

from __future__ import annotations

import importlib.metadata
import itertools
from pathlib import Path
from typing import Any

import pytest

from sari_core.kernel import Kernel

# Policies that act on reads; every combination of the installed ones is tried.
READ_POLICIES = ("budget", "refgate", "relevance", "aggregation", "secretguard")
MISSING = "no/such.py"


def _installed() -> dict[str, type]:
    found = {entry.name: entry for entry in importlib.metadata.entry_points(group="sari")}
    return {name: found[name].load() for name in READ_POLICIES if name in found}


def _combinations() -> list[tuple[str, ...]]:
    names = sorted(_installed())
    return [combo for size in range(len(names) + 1)
            for combo in itertools.combinations(names, size)]


def _kernel(root: Path, names: tuple[str, ...], settings: dict | None = None) -> Kernel:
    classes = _installed()
    return Kernel(roots=[root], plugins=[classes[name]() for name in names],
                  load_entry_points=False, analytics_sinks=[], settings=settings or {})


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hints")
    (root / "app").mkdir()
    (root / "app" / "such.py").write_text("def found():\n    return 1\n", encoding="utf-8")
    (root / "app" / "big.py").write_text(
        "".join(f"def f{n}():\n    return {n}\n\n" for n in range(400)), encoding="utf-8")
    for n in range(4):
        (root / "app" / f"m{n}.py").write_text("def part():\n    return 1\n" * 30,
                                               encoding="utf-8")
    (root / ".env").write_text("API_KEY=sk-live-0123456789abcdef0123\n", encoding="utf-8")
    (root / "app" / "keys.py").write_text(
        'TOKEN = "ghp_' + "a1B2c3D4e5" * 4 + '"\n', encoding="utf-8")
    return root


MISSING_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read", {"mode": "file", "target": MISSING}),
    ("read", {"mode": "file", "target": MISSING, "offset": 50, "limit": 10}),
    ("read", {"mode": "snippet", "target": MISSING, "start_line": 3, "end_line": 400}),
    ("read", {"mode": "outline", "target": MISSING}),
    ("read_file", {"path": MISSING}),
]


def _execute(kernel: Kernel, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if tool == "search":
        return kernel.execute_search(arguments)
    if tool in ("edit", "write"):
        return kernel.execute_mutation(tool, arguments)
    if tool in kernel.tools:
        return kernel.execute_tool(tool, arguments)
    return kernel.execute_read(arguments, entrypoint=tool)


def _next_calls(response: dict[str, Any]) -> list[dict[str, Any]]:
    return response["meta"]["stabilization"]["next_calls"]


def _target(arguments: dict[str, Any]) -> Any:
    return arguments.get("target", arguments.get("path"))


@pytest.mark.parametrize("names", _combinations(), ids=lambda names: "+".join(names) or "core")
def test_a_missing_file_leads_to_a_path_search_for_its_name(tree: Path,
                                                            names: tuple[str, ...]) -> None:
    kernel = _kernel(tree, names)
    try:
        for tool, arguments in MISSING_CALLS:
            response = _execute(kernel, tool, arguments)
            assert response["error"]["code"] == "NOT_FOUND", (tool, arguments, response)
            calls = _next_calls(response)
            assert calls and calls[0]["tool"] == "search", (tool, arguments, calls)
            assert calls[0]["arguments"]["query"] == "such.py"
            assert calls[0]["arguments"]["kind"] == "path"
            assert not [call for call in calls if _target(call["arguments"]) == MISSING], calls
            found = _execute(kernel, "search", calls[0]["arguments"])
            assert found["ok"] and found["matches"][0]["path"] == "app/such.py"
    finally:
        kernel.close()


# Calls that draw refusals and reason codes out of the policies (tight settings).
TIGHT = {"budget": {"max_single_read_lines": 40, "max_range_read_lines": 60,
                    "max_reads_per_session": 40},
         "refgate": {"max_range_lines": 50}}
SCENARIO: list[tuple[str, dict[str, Any]]] = [
    ("read", {"mode": "file", "target": "app/big.py"}),
    ("read", {"mode": "file", "target": "app/big.py", "offset": 100, "limit": 300}),
    ("read", {"mode": "file", "target": "app/big.py", "offset": 5000}),
    ("read", {"mode": "snippet", "target": "app/big.py", "start_line": 9000}),
    ("read", {"mode": "snippet", "target": "app/big.py", "start_line": 10, "end_line": 400}),
    ("search", {"query": "def f2"}),
    ("read", {"mode": "file", "target": "app/big.py"}),
    ("read", {"mode": "symbol", "target": "nothing_like_this"}),
    ("read", {"mode": "file", "target": "app"}),
    ("read", {"mode": "file", "target": "../outside.py"}),
    ("read", {"mode": "file", "target": MISSING}),
    ("edit", {"path": "app/such.py", "old_string": "no such text", "new_string": "x"}),
    ("read", {"mode": "file", "target": ".env"}),
    ("read", {"mode": "file", "target": "app/keys.py"}),
    *[("read", {"mode": "file", "target": f"app/m{n}.py", "offset": 1, "limit": 20})
      for n in range(4)],
    ("read", {"mode": "file", "target": "app/m1.py", "offset": 1, "limit": 60}),
]


def _same_failure(before: dict[str, Any], after: dict[str, Any], call: dict[str, Any],
                  failed: dict[str, Any]) -> bool:
    if after.get("ok") or before.get("ok"):
        return False
    return (after["error"]["code"] == before["error"]["code"]
            and _target(call["arguments"]) == _target(failed))


STRICT = {**TIGHT, "refgate": {**TIGHT["refgate"], "strict": True},
          "budget": {**TIGHT["budget"], "max_reads_per_session": 8}}


@pytest.mark.parametrize("names,settings", [
    ((), TIGHT), (tuple(sorted(_installed())), TIGHT), (tuple(sorted(_installed())), STRICT)],
    ids=["core", "every read policy", "every read policy, strict and a small budget"])
def test_every_next_call_proposed_moves_forward(tmp_path: Path, tree: Path,
                                                names: tuple[str, ...],
                                                settings: dict[str, Any]) -> None:
    kernel = _kernel(tree, names, settings)
    seen: set[str] = set()
    try:
        for tool, arguments in SCENARIO:
            response = _execute(kernel, tool, arguments)
            seen.update(response["meta"]["stabilization"]["reason_codes"])
            for call in _next_calls(response):
                assert call != {"tool": tool, "arguments": arguments}, (tool, arguments)
                followed = _execute(kernel, call["tool"], call["arguments"])
                assert not _same_failure(response, followed, call, arguments), \
                    (tool, arguments, call, followed.get("error"))
    finally:
        kernel.close()
    # the walk meets the read policies' reason codes, not only the kernel's
    if names and settings is TIGHT:
        assert {"AGGREGATION_DEDUPLICATED", "BUDGET_WINDOW_AT_MATCH",
                "LOW_RELEVANCE_OUTSIDE_TOPK", "PREVIEW_DEGRADED", "REFGATE_READ_WINDOWED",
                "SECRET_FILE_BLOCKED", "SECRET_REDACTED"} <= seen, seen
    elif names:
        assert {"BUDGET_HARD_LIMIT", "BUDGET_SOFT_LIMIT", "SEARCH_FIRST_REQUIRED",
                "SEARCH_REF_REQUIRED"} <= seen, seen
