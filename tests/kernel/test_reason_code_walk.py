"""Every registered reason code is provoked through a real kernel, and its hint moves forward.

The codes are enumerated from the registry the kernel builds with every installed plugin, so a
code added later without a walk case here fails ``test_every_registered_code_has_a_walk``.
Each walk runs real calls (real index, real files, the real ruff server for the edit gate)
until the code shows, and every response that carries it is checked: no next call repeats the
call that drew it, and each next call, followed, is not refused again for the same reason on
the same target.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from plugins_for_tests import RaisingPolicy

from sari_core.kernel import Kernel

READ_POLICIES = ("aggregation", "budget", "refgate", "relevance", "secretguard")
LONG = "".join(f"def handler_{n}(request):\n" + "    value = request\n" * 18
               + "    return value\n\n" for n in range(1, 11))  # 210 lines, ten definitions: a blind read is outlined
FILES = {
    "app/big.py": "".join(f"def f{n}():\n    return {n}\n\n" for n in range(400)),
    "app/long.py": LONG,
    **{f"app/m{n}.py": "def part():\n    return 1\n" * 30 for n in range(4)},
    "app/such.py": "def found():\n    return 1\n",
    "pkg/__init__.py": "",
    "pkg/calc.py": "def add(a, b):\n    return a + b\n",
    "pkg/report.py": "RESULT = 0\n",
    "pkg/legacy.py": "def broken(:\n    pass\n\nVALUE = 1\n",
    "pkg/watched.py": "VALUE = 1\n",
    "vendor/lib.py": "def vendored():\n    return 1\n",
    ".env": "API_KEY=sk-live-0123456789abcdef0123\n",
    "app/keys.py": 'TOKEN = "ghp_' + "a1B2c3D4e5" * 4 + '"\n',
}
Step = tuple[str, dict[str, Any]] | Callable[[Path], None]


@dataclass
class Walk:
    """The calls (and changes on disk) that draw ``code`` out of a kernel."""

    steps: list[Step]
    needs: tuple[str, ...] = ()  # plugins the code comes from; every read policy installed joins
    alone: bool = False  # only ``needs``: another policy would answer the call first
    settings: dict[str, Any] = field(default_factory=dict)
    extra: Callable[[], list[Any]] = list
    env: dict[str, str] = field(default_factory=dict)
    before: Callable[[Kernel], None] | None = None


def _disk(path: str, text: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / path).write_text(text, encoding="utf-8")
    return change


def _edit(path: str, old: str, new: str) -> Step:
    return ("edit", {"path": path, "old_string": old, "new_string": new})


def _read(target: str, **more: Any) -> Step:
    return ("read", {"mode": "file", "target": target, **more})


def _indexed(kernel: Kernel) -> None:
    # Changes on disk are noticed against a built index (the server builds it at start).
    kernel.engine.ensure_index()


def _scan_first(kernel: Kernel) -> None:
    # The CLI's one-shot mode: the first search is answered from a scan, before any build.
    kernel.engine.scan_before_build = True


STRICT = {"refgate": {"strict": True}}
TIGHT_BUDGET = {"budget": {"max_single_read_lines": 40, "max_reads_per_session": 6}}
# Only ruff validates: it is installed with sari-lspgate and answers within a second.
RUFF = {"basedpyright": False, "ruff": True}
GATE = ("lspgate",)
EXTERNAL_GATE: dict[str, Any] = {"needs": GATE, "settings": {"lspgate": RUFF},
                                 "before": _indexed}
BROKEN_EDIT = _edit("pkg/calc.py", "return a + b", "return a + (b")
WALKS: dict[str, Walk] = {
    "SEARCH_FIRST_REQUIRED": Walk([_read("app/big.py")], settings=STRICT, needs=("refgate",)),
    # The session searched, but no search returned app/big.py.
    "SEARCH_REF_REQUIRED": Walk([("search", {"query": "def found"}),
                                 _read("app/big.py", offset=101, limit=1000)],
                                settings=STRICT, needs=("refgate",)),
    "CANDIDATE_REF_REQUIRED": Walk([("search", {"query": "def f0"}),
                                    _read("app/long.py", candidate_id="cand_0000000000000000")],
                                   settings=STRICT, needs=("refgate",)),
    "REFGATE_RANGE_TOO_WIDE": Walk([("search", {"query": "def found"}),
                                    _read("app/big.py", offset=101, limit=1000)],
                                   settings=STRICT, needs=("refgate",)),
    "REFGATE_READ_OUTLINED": Walk([_read("app/long.py")], needs=("refgate",)),
    "REFGATE_READ_WINDOWED": Walk([_read("app/long.py")],
                                  settings={"refgate": {"blind_reads": "window"}},
                                  needs=("refgate",)),
    "REFGATE_DRIFT_OUTLINED": Walk([_read(f"app/m{n}.py") for n in range(4)], needs=("refgate",)),
    "BUDGET_SOFT_LIMIT": Walk([_read(f"app/m{n % 4}.py", offset=1 + n, limit=10)
                               for n in range(8)], settings=TIGHT_BUDGET, needs=("budget",)),
    "BUDGET_HARD_LIMIT": Walk([_read(f"app/m{n % 4}.py", offset=1 + n, limit=10)
                               for n in range(8)], settings=TIGHT_BUDGET, needs=("budget",)),
    "BUDGET_WINDOW_AT_MATCH": Walk([("search", {"query": "def f2"}), _read("app/big.py")],
                                   settings=TIGHT_BUDGET, needs=("budget",)),
    "LOW_RELEVANCE_OUTSIDE_TOPK": Walk([("search", {"query": "def f2"}), _read("app/m1.py"),
                                        _read("app/such.py")], needs=("relevance",)),
    "RELEVANCE_EXCLUDED_PATH": Walk([_read("vendor/lib.py")], needs=("relevance",)),
    "AGGREGATION_DEDUPLICATED": Walk([_read("app/m1.py", offset=1, limit=20),
                                      _read("app/m1.py", offset=1, limit=40)],
                                     needs=("aggregation",)),
    "SECRET_FILE_BLOCKED": Walk([_read(".env")], needs=("secretguard",)),
    "SECRET_REDACTED": Walk([_read("app/keys.py")], needs=("secretguard",)),
    "PREVIEW_DEGRADED": Walk([_read("app/big.py")], needs=("budget",), alone=True,
                             settings=TIGHT_BUDGET),
    "PLUGIN_ERROR": Walk([_read("app/such.py")], extra=lambda: [RaisingPolicy()]),
    "SESSION_ID_REQUIRED": Walk([_read("app/such.py")], env={"SARI_STRICT_SESSION_ID": "1"}),
    "INDEX_BUILDING": Walk([("search", {"query": "def found"})], before=_scan_first),
    "EXTERNAL_CHANGE": Walk([_read("app/such.py"), _disk("app/such.py", "def moved():\n"),
                             _read("app/m1.py", offset=1, limit=5)], before=_indexed),
    "LSP_GATE_BLOCKED": Walk([BROKEN_EDIT, _edit("pkg/report.py", "RESULT = 0", "RESULT = 1")],
                             needs=GATE, settings={"lspgate": RUFF}),
    "LSP_GATE_LIFTED": Walk([BROKEN_EDIT, _edit("pkg/calc.py", "return a + (b", "return a + b")],
                            needs=GATE, settings={"lspgate": RUFF}),
    "LSP_GATE_ACTIVE": Walk([_read("pkg/watched.py"), _disk("pkg/watched.py", "VALUE = (1\n"),
                             _read("app/such.py")], **EXTERNAL_GATE),
    # Errors a change outside Sari brought are reported, not gated, when so configured.
    "LSP_EXTERNAL_ERRORS": Walk([_read("pkg/watched.py"), _disk("pkg/watched.py", "VALUE = (1\n"),
                                 _read("app/such.py")], needs=GATE, before=_indexed,
                                settings={"lspgate": {**RUFF, "gate_external_changes": False}}),
    "LSP_PREEXISTING_ERRORS": Walk([_edit("pkg/legacy.py", "VALUE = 1", "VALUE = 2")],
                                   needs=GATE, settings={"lspgate": RUFF}),
    # A validator whose program is not there cannot validate: the edit is served, said so.
    "LSP_UNAVAILABLE": Walk([_edit("pkg/report.py", "RESULT = 0", "RESULT = 1")], needs=GATE,
                            settings={"lspgate": {"ruff": False, "basedpyright": False,
                                                  "command_validators": [
                                                      {"name": "absent",
                                                       "command": ["/nonexistent/validator",
                                                                   "{file}"],
                                                       "patterns": ["*.py"],
                                                       "parser": "gnu"}]}}),
}


def _entry_points() -> dict[str, Any]:
    return {entry.name: entry for entry in importlib.metadata.entry_points(group="sari")}


def _registered_codes(tmp_path: Path) -> list[str]:
    plugins = [entry.load()() for entry in _entry_points().values()]
    kernel = Kernel(roots=[tmp_path], plugins=plugins, load_entry_points=False,
                    analytics_sinks=[])
    try:
        return kernel.reasons.codes()
    finally:
        kernel.close()


def test_every_registered_code_has_a_walk(tmp_path: Path) -> None:
    missing = [code for code in _registered_codes(tmp_path) if code not in WALKS]
    assert not missing, f"reason codes without a walk case here: {missing}"


def _execute(kernel: Kernel, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if tool == "search":
        return kernel.execute_search(arguments)
    if tool in ("edit", "write"):
        return kernel.execute_mutation(tool, arguments)
    return kernel.execute_read(arguments, entrypoint=tool)


def _codes(response: dict[str, Any]) -> list[str]:
    return response["meta"]["stabilization"]["reason_codes"]


def _target(arguments: dict[str, Any]) -> Any:
    return arguments.get("target", arguments.get("path"))


def _walk_kernel(root: Path, walk: Walk) -> Kernel:
    found = _entry_points()
    absent = [name for name in walk.needs if name not in found]
    if absent:
        pytest.skip(f"not installed here: {', '.join('sari-' + name for name in absent)}")
    names = set(walk.needs) | (set() if walk.alone else set(READ_POLICIES) & set(found))
    plugins = [found[name].load()() for name in sorted(names)] + walk.extra()
    return Kernel(roots=[root], plugins=plugins, load_entry_points=False, analytics_sinks=[],
                  settings=walk.settings)


@pytest.mark.parametrize("code", sorted(WALKS))
def test_the_hint_of_every_reason_code_moves_forward(code: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    walk = WALKS[code]
    for name, value in walk.env.items():
        monkeypatch.setenv(name, value)
    for relative, text in FILES.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    kernel = _walk_kernel(tmp_path, walk)
    carried: int = 0
    seen: list[Any] = []
    try:
        if walk.before is not None:
            walk.before(kernel)
        for step in walk.steps:
            if callable(step):
                step(tmp_path)
                continue
            tool, arguments = step
            response = _execute(kernel, tool, arguments)
            seen.append((response["ok"] or response["error"]["code"], _codes(response)))
            if code not in _codes(response):
                continue
            carried += 1
            _moves_forward(kernel, tool, arguments, response)
        _a_missing_file_leads_to_a_path_search(kernel)
    finally:
        kernel.close()
    assert carried, f"the walk never drew {code}: {seen}"


# The fix of a strict-session refusal is an argument only the client can choose.
NO_CALL_FIXES = {"SESSION_ID_REQUIRED"}


def _a_missing_file_leads_to_a_path_search(kernel: Kernel) -> None:
    # whatever the walk left behind (gate, spent budget, strict refgate), in a fresh session
    response = kernel.execute_read({"mode": "file", "target": "no/such.py",
                                    "session_id": "missing-file"})
    assert response["error"]["code"] == "NOT_FOUND", response
    first = response["meta"]["stabilization"]["next_calls"][0]
    assert first == {"tool": "search", "arguments": {"query": "such.py", "kind": "path"}}, first


def _moves_forward(kernel: Kernel, tool: str, arguments: dict[str, Any],
                   response: dict[str, Any]) -> None:
    failure = None if response["ok"] else response["error"]["code"]
    if failure and not set(_codes(response)) & NO_CALL_FIXES:
        assert response["meta"]["stabilization"]["next_calls"], \
            f"the refusal {failure} proposes no call that moves on: {response}"
    for call in response["meta"]["stabilization"]["next_calls"]:
        assert call != {"tool": tool, "arguments": arguments}, (tool, arguments, response)
        followed = _execute(kernel, call["tool"], call["arguments"])
        again = None if followed["ok"] else followed["error"]["code"]
        assert not (failure and again == failure
                    and _target(call["arguments"]) == _target(arguments)), \
            (tool, arguments, call, followed.get("error"))
