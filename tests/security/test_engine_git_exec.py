"""Nothing an agent writes makes Sari's own git run code.

The attack: write a repository of one's own below the workspace (``nested/.git``
with a ``core.fsmonitor`` command and a ``filter.x.clean`` command), a
``.gitattributes`` that applies the filter, then ask for ``diff_preview`` of a
file there. Both commands would run on the server's machine. Writes into a
``.git`` folder are refused (at any depth, in any letter case), and git runs only
on the workspace's own repository with no filter, diff driver, textconv or
fsmonitor taken from the workspace, so even a nested repository planted on disk
runs nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sari_stdio import body, isolated_env, read_past_refgate, serve_stdio

from sari_core.engine import Workspace
from sari_core.errors import SariError
from sari_core.models import MutationCall, ReadCall


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                   check=True, capture_output=True)


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# demo\n", encoding="utf-8")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "initial")
    return root


def _evil_config(marker_dir: Path) -> str:
    # '#' comments out the arguments git appends to the fsmonitor command.
    return ("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
            f"\tfsmonitor = \"touch {marker_dir / 'fsmonitor-ran'} #\"\n"
            f"[filter \"x\"]\n\tclean = \"touch {marker_dir / 'filter-ran'}; cat\"\n"
            f"\tsmudge = cat\n"
            f"[diff \"x\"]\n\ttextconv = \"touch {marker_dir / 'textconv-ran'}; cat\"\n")


def _exploit_files(marker_dir: Path) -> dict[str, str]:
    return {
        "nested/.git/HEAD": "ref: refs/heads/main\n",
        "nested/.git/config": _evil_config(marker_dir),
        "nested/.git/objects/.keep": "",
        "nested/.git/refs/heads/.keep": "",
        "nested/.gitattributes": "* filter=x diff=x\n",
        "nested/a.txt": "hello\n",
    }


def _ran(marker_dir: Path) -> list[str]:
    return sorted(path.name for path in marker_dir.iterdir())


async def test_the_write_then_diff_preview_exploit_runs_nothing(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, isolated_env(tmp_path), errlog) as client:
            refused = []
            for path, content in _exploit_files(markers).items():
                reply = body(await client.call_tool("write", {"path": path,
                                                              "content": content}))
                if not reply["ok"]:
                    refused.append((path, reply["error"]["code"]))
            preview = await read_past_refgate(
                client, {"mode": "diff_preview", "target": "nested/a.txt"})
            hook = body(await client.call_tool(
                "write", {"path": "nested/.git/hooks/post-commit",
                          "content": "#!/bin/sh\ntouch pwned\n"}))
    assert _ran(markers) == []
    assert [path for path, _ in refused] == [
        "nested/.git/HEAD", "nested/.git/config", "nested/.git/objects/.keep",
        "nested/.git/refs/heads/.keep"]
    assert {code for _, code in refused} == {"PROTECTED_PATH"}
    assert not (root / "nested" / ".git").exists()
    assert hook["ok"] is False and hook["error"]["code"] == "PROTECTED_PATH"
    assert "hint" in hook["error"] and hook["error"]["hint"]
    assert preview["ok"], preview  # the workspace's repository: a.txt is a new file
    assert "+hello" in preview["diff"]


@pytest.mark.parametrize("path", [
    ".git/config", "nested/.git/config", "a/b/.git/hooks/pre-commit", ".GIT/config",
    "nested/.Git/HEAD", "deep/.git", "x/.git./config", "x/.git /config", "x/GIT~1/config",
    "x/.g\u200cit/config", ".hg/hgrc", "sub/.svn/entries"])
def test_writes_and_edits_into_version_control_metadata_are_refused(tmp_path: Path,
                                                                    path: str) -> None:
    root = _workspace(tmp_path)
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        with pytest.raises(SariError) as refused:
            engine.plan_mutation(MutationCall(tool="write", path=path, content="x\n"))
        assert refused.value.code == "PROTECTED_PATH"
        assert refused.value.hint
        with pytest.raises(SariError) as edit_refused:
            engine.plan_mutation(MutationCall(tool="edit", path=path, old_string="a",
                                              new_string="b"))
        assert edit_refused.value.code == "PROTECTED_PATH"
    assert sorted(p.name for p in root.iterdir()) == [".git", "README.md"]


def test_a_nested_repository_planted_on_disk_runs_no_command(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    for rel, text in _exploit_files(markers).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".gitattributes").write_text("* filter=x diff=x\n", encoding="utf-8")
    (root / "README.md").write_text("# changed\n", encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        for against in ("HEAD", "INDEX", "WORKTREE"):
            with pytest.raises(SariError) as nested:
                engine.read(ReadCall(mode="diff_preview", target="nested/a.txt",
                                     against=against))
            assert nested.value.code == "NOT_A_GIT_REPOSITORY"
            assert "nested" in nested.value.message
            whole = engine.read(ReadCall(mode="diff_preview", target=".", against=against))
            assert whole.extra is not None
        top = engine.read(ReadCall(mode="diff_preview", target="README.md"))
    assert "+# changed" in (top.diff or "")
    assert _ran(markers) == []


def test_the_workspace_repositorys_own_filter_and_fsmonitor_do_not_run(tmp_path: Path) -> None:
    """Even a command in the repository's config (which an agent cannot write) is not
    run by a preview: a preview never needs one."""
    root = _workspace(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    config = root / ".git" / "config"
    config.write_text(config.read_text(encoding="utf-8") + _evil_config(markers)
                      .split("[filter", 1)[1].join(["[filter", ""]) + "[core]\n\tfsmonitor = "
                      f"\"touch {markers / 'fsmonitor-ran'} #\"\n", encoding="utf-8")
    (root / ".gitattributes").write_text("* filter=x diff=x\n", encoding="utf-8")
    (root / "README.md").write_text("# changed\n", encoding="utf-8")
    (root / "new.txt").write_text("fresh\n", encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as engine:
        for against in ("HEAD", "INDEX", "WORKTREE"):
            engine.read(ReadCall(mode="diff_preview", target=".", against=against))
        preview = engine.read(ReadCall(mode="diff_preview", target="."))
    assert "+# changed" in (preview.diff or "") and "+fresh" in (preview.diff or "")
    assert _ran(markers) == []
