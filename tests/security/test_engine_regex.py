"""One regex cannot freeze the server: patterns run in linear time, or are refused.

``(a+)+$`` over a line of ``a`` s ending in another character takes a backtracking
engine exponential time (28 characters were 20 s); every other call waited. The
bounds below are hang detectors, far above what a linear-time engine needs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import pytest
from sari_stdio import body, isolated_env, serve_stdio

from sari_core.engine import Workspace
from sari_core.errors import SariError
from sari_core.models import SearchCall

EVIL = "(a+)+$"
HANG_BOUND_SECONDS = 60


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "long.txt").write_text("a" * 5000 + "!\n" + "aaaa\n", encoding="utf-8")
    (root / "app.py").write_text("def handle_request():\n    return 1\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


async def test_a_catastrophic_pattern_answers_and_holds_up_no_other_call(tmp_path: Path
                                                                          ) -> None:
    root = _workspace(tmp_path)
    replies: dict[str, dict[str, object]] = {}
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, isolated_env(tmp_path), errlog) as client:
            await client.call_tool("search", {"query": "handle_request"})  # index built

            async def call(name: str, arguments: dict[str, object]) -> None:
                replies[name] = body(await client.call_tool("search", arguments))

            with anyio.fail_after(HANG_BOUND_SECONDS):
                async with anyio.create_task_group() as group:
                    group.start_soon(call, "evil", {"query": EVIL, "kind": "regex"})
                    group.start_soon(call, "other", {"query": "handle_request"})
    evil, other = replies["evil"], replies["other"]
    assert evil["ok"] is True, evil
    assert [match["path"] for match in evil["matches"]] == ["long.txt"]
    assert [match["line"] for match in evil["matches"]] == [2]  # "aaaa" matches, line 1 not
    assert other["ok"] is True and other["matches"][0]["path"] == "app.py"


@pytest.mark.parametrize(("pattern", "named"), [
    (r"(a)\1", "backreferences"), (r"foo(?=bar)", "lookahead"), (r"(?<!x)y", "lookbehind"),
    (r"a++", "possessive"), (r"end\Z", r"\z")])
def test_a_pattern_the_linear_engine_cannot_run_is_refused_with_a_hint(
        tmp_path: Path, pattern: str, named: str) -> None:
    root = _workspace(tmp_path)
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine, \
            pytest.raises(SariError) as refused:
        engine.search(SearchCall(query=pattern, kind="regex"))
    assert refused.value.code == "INVALID_ARGS"
    assert named in refused.value.message
    assert "kind='text'" in refused.value.hint


def test_regex_flags_still_apply(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        anchored = engine.search(SearchCall(query="^    return", kind="regex"))
        folded = engine.search(SearchCall(query="HANDLE_request", kind="regex"))
        exact = engine.search(SearchCall(query="HANDLE_request", kind="regex",
                                         case_sensitive=True))
    assert [(m.path, m.line) for m in anchored.matches] == [("app.py", 2)]
    assert [m.path for m in folded.matches] == ["app.py"]
    assert exact.matches == []
