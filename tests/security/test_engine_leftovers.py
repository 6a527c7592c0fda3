"""Odd leftovers and odd sizes: orphaned temporary files, over-long paths, huge files.

* a temporary file a killed write left behind (``.NAME.XXXX.sari-tmp``) is removed
  when Sari starts and is never indexed or searchable;
* a path longer than the filesystem allows is a structured refusal, and no error
  names the server's own absolute paths;
* a file over the whole-read limit can still be read in parts (streamed), and the
  call a refusal suggests is one that works.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from sari_stdio import body, isolated_env, read_past_refgate, serve_stdio

from sari_core.engine import Workspace
from sari_core.engine.navigation.reading import HARD_READ_BYTES
from sari_core.errors import SariError
from sari_core.models import MutationCall, ReadCall

ORPHAN = "sub/.notes.txt.k3j4h5g6.sari-tmp"
YOUNG = "sub/.draft.txt.a1b2c3d4.sari-tmp"


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "notes.txt").write_text("kept notes\n", encoding="utf-8")
    (root / ORPHAN).write_text("half written ORPHANED-CONTENT\n", encoding="utf-8")
    (root / YOUNG).write_text("in progress YOUNG-CONTENT\n", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(root / ORPHAN, (an_hour_ago, an_hour_ago))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


async def test_orphaned_temp_files_are_removed_and_never_indexed(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, isolated_env(tmp_path), errlog) as client:
            while True:  # until the first build is complete (its walk sweeps orphans)
                kept = body(await client.call_tool("search", {"query": "kept notes"}))
                if kept["meta"].get("index_ready"):
                    break
            orphan = body(await client.call_tool("search", {"query": "ORPHANED-CONTENT"}))
            young = body(await client.call_tool("search", {"query": "YOUNG-CONTENT"}))
            listed = body(await client.call_tool("search", {"query": "sari-tmp",
                                                            "kind": "path"}))
    assert [match["path"] for match in kept["matches"]] == ["sub/notes.txt"]
    assert orphan["matches"] == [] and young["matches"] == [] and listed["matches"] == []
    assert not (root / ORPHAN).exists()
    assert (root / YOUNG).exists()  # may belong to a write in progress elsewhere


async def test_too_long_paths_are_refused_without_the_servers_paths(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    long_name = "n" * 300
    long_path = "/".join(["deep"] * 1200)
    calls = [
        ("read", {"mode": "file", "target": f"sub/{long_name}.txt"}),
        ("read", {"mode": "file", "target": long_path}),
        ("read", {"mode": "snippet", "target": f"{long_name}/x.py", "start_line": 1}),
        ("write", {"path": f"sub/{long_name}.txt", "content": "x\n"}),
        ("write", {"path": f"{long_name}/inner.txt", "content": "x\n"}),
        ("write", {"path": long_path + "/f.txt", "content": "x\n"}),
        ("edit", {"path": f"sub/{long_name}.txt", "old_string": "a", "new_string": "b"}),
    ]
    replies = []
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, isolated_env(tmp_path), errlog) as client:
            for tool, arguments in calls:
                if tool == "read":
                    replies.append(await read_past_refgate(client, arguments))
                else:
                    replies.append(body(await client.call_tool(tool, arguments)))
    for reply in replies:
        assert reply["ok"] is False
        assert reply["error"]["code"] in ("INVALID_ARGS", "NOT_FOUND"), reply["error"]
        assert reply["error"]["hint"]
        text = json.dumps(reply)
        assert str(tmp_path) not in text and os.path.realpath(tmp_path) not in text
    assert not (root / "deep").exists()
    assert not [path for path in root.rglob("*") if long_name[:200] in path.name]


@pytest.fixture(scope="module")
def huge_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("huge") / "ws"
    root.mkdir()
    line = "x" * 99 + "\n"
    block = "".join(f"{number:09d}" + line[9:] for number in range(1, 10_001))
    with (root / "huge.log").open("w", encoding="utf-8") as out:
        while out.tell() <= HARD_READ_BYTES + 1_000_000:
            out.write(block)
        out.write("the last line")
    return root


def test_a_snippet_of_a_file_over_the_limit_is_streamed(huge_file: Path, tmp_path: Path
                                                         ) -> None:
    size = (huge_file / "huge.log").stat().st_size
    lines = size // 100 + 1
    with Workspace([huge_file], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        with pytest.raises(SariError) as whole:
            engine.read(ReadCall(mode="file", target="huge.log"))
        assert whole.value.code == "FILE_TOO_LARGE"
        suggested = whole.value.next_calls[0]
        assert suggested.tool == "read"
        first = engine.read(ReadCall(**suggested.arguments))
        middle = engine.read(ReadCall(mode="snippet", target="huge.log", start_line=15_002,
                                      end_line=15_003))
        page = engine.read(ReadCall(mode="file", target="huge.log", offset=lines - 2, limit=5))
    assert first.start_line == 1 and first.text.startswith("000000001xx")
    assert first.total_lines == lines
    assert middle.text.splitlines() == ["000005002" + "x" * 90, "000005003" + "x" * 90]
    assert (middle.start_line, middle.end_line) == (15_002, 15_003)
    assert page.text.splitlines()[-1] == "the last line"
    assert page.end_line == lines and page.extra.get("next_offset") is None


@pytest.mark.parametrize(("tool", "arguments"), [
    ("read", {"mode": "file", "target": "a\ud800.txt"}),
    ("write", {"path": "b\ud800.txt", "content": "x\n"}),
    ("write", {"path": "b.txt", "content": "x\ud800\n"}),
    ("edit", {"path": "sub/notes.txt", "old_string": "kept", "new_string": "\udfff"}),
])
def test_lone_surrogates_are_refused_with_nothing_written(tmp_path: Path, tool: str,
                                                          arguments: dict[str, str]) -> None:
    root = _workspace(tmp_path)
    before = sorted(path.name for path in root.rglob("*"))
    with Workspace([root], index_path=tmp_path / "index.sqlite", watch=False) as engine, \
            pytest.raises(SariError) as refused:
        if tool == "read":
            engine.read(ReadCall(**arguments))
        else:
            engine.apply_mutation(engine.plan_mutation(MutationCall(tool=tool, **arguments)))
    assert refused.value.code == "INVALID_ARGS" and refused.value.hint
    assert sorted(path.name for path in root.rglob("*")) == before
    assert (root / "sub" / "notes.txt").read_text(encoding="utf-8") == "kept notes\n"
