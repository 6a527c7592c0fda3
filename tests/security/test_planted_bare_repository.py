"""A bare repository planted at the root of a workspace without ``.git`` is not git's.

With ``HEAD``, ``config``, ``objects`` and ``refs`` written at the top of the workspace
(ordinary files an agent can write), git's own discovery takes the workspace root for a
bare repository and reads that ``config``. ``diff_preview`` looks for the workspace's
``.git`` itself and points git at it, so the planted one is never read.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.errors import SariError
from sari_core.models import ReadCall

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _plant(root: Path, scratch: Path) -> None:
    """A working bare repository whose worktree is the workspace, copied into its root."""
    bare = scratch / "bare"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for name in ("HEAD", "config", "objects", "refs"):
        source = bare / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        else:
            shutil.copy(source, root / name)
    with (root / "config").open("a", encoding="utf-8") as config:
        config.write(f"[core]\n\tworktree = {root}\n\tbare = false\n")


def test_diff_preview_refuses_a_planted_root_repository(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("VALUE = 1\n", encoding="utf-8")
    _plant(root, tmp_path)
    assert not (root / ".git").exists()
    engine = Workspace([root])
    try:
        with pytest.raises(SariError) as refused:
            engine.read(ReadCall(mode="diff_preview", target="app.py"))
    finally:
        engine.close()
    assert refused.value.code == "NOT_A_GIT_REPOSITORY"


def test_a_real_repository_above_the_root_still_serves(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    (top / "sub").mkdir(parents=True)
    (top / "sub" / "app.py").write_text("VALUE = 1\n", encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=top, check=True)
    subprocess.run([*git, "add", "."], cwd=top, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], cwd=top, check=True)
    (top / "sub" / "app.py").write_text("VALUE = 2\n", encoding="utf-8")
    engine = Workspace([top / "sub"])
    try:
        result = engine.read(ReadCall(mode="diff_preview", target="app.py"))
    finally:
        engine.close()
    assert "+VALUE = 2" in (result.diff or "")
