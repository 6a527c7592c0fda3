"""The workspace walk: depth first, a folder's files before its subfolders, each in name
order, the ignore rules applied at every level; no folder descriptor left open, whether the
walk ends or its consumer stops early."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from sari_core.engine.files import fdwalk
from sari_core.engine.files.ignore import IgnoreRules

TREE = {
    "b.py": "", "a.py": "", ".gitignore": "*.log\nbuild_out/\n",
    "pkg/z.py": "", "pkg/m.log": "", "pkg/.gitignore": "!keep.log\n", "pkg/keep.log": "",
    "pkg/sub/deep/x.py": "", "pkg/sub/y.py": "", "pkg/build_out/gen.py": "",
    "node_modules/lib.js": "", "env/pyvenv.cfg": "", "env/lib/site.py": "",
    "zeta/.w.py.sari-tmp": "", "zeta/w.py": "",
}
EXPECTED = [".gitignore", "a.py", "b.py", "pkg/.gitignore", "pkg/keep.log", "pkg/z.py",
            "pkg/sub/y.py", "pkg/sub/deep/x.py", "zeta/w.py"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel, text in TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    os.symlink(tmp_path / "pkg", tmp_path / "link")  # never followed
    return tmp_path


def descriptors_in(tree: Path) -> list[str]:
    """This process's open descriptors of folders of ``tree`` (other threads' are not)."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target == str(tree) or target.startswith(f"{tree}/"):
            held.append(target)
    return held


def test_the_walk_lists_files_before_subfolders_in_name_order(tree: Path) -> None:
    entries = list(IgnoreRules(tree).walk())
    assert [entry.rel for entry in entries] == EXPECTED
    for entry in entries:
        assert entry.abs == str(tree / entry.rel)
        info = os.stat(entry.abs)
        assert (entry.size, entry.mtime_ns) == (info.st_size, info.st_mtime_ns)
    assert [entry.rel for entry in IgnoreRules(tree).walk(start="pkg")] == [
        rel for rel in EXPECTED if rel.startswith("pkg/")]


def test_the_workspace_extra_exclusions_apply_below_every_folder(tree: Path) -> None:
    assert [entry.rel for entry in IgnoreRules(tree, ["sub/"]).walk()] == [
        rel for rel in EXPECTED if "/sub/" not in rel]


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="/proc/self/fd lists a process's descriptors on Linux")
def test_no_descriptor_stays_open_after_a_walk_or_an_early_stop(tree: Path) -> None:
    assert fdwalk.supported()  # Linux always walks relative to folder descriptors
    assert len(list(IgnoreRules(tree).walk())) == len(EXPECTED)
    assert descriptors_in(tree) == []
    walk = IgnoreRules(tree).walk()
    assert isinstance(walk, types.GeneratorType)
    assert next(walk).rel == ".gitignore"
    assert [next(walk).rel for _ in range(6)][-1] == "pkg/sub/y.py"  # two folders deep
    assert len(descriptors_in(tree)) == 3  # the root, pkg and pkg/sub
    walk.close()
    assert descriptors_in(tree) == []


def test_a_temporary_file_of_sari_is_reported_not_listed(tree: Path) -> None:
    found: list[str] = []
    listed = [entry.rel for entry in IgnoreRules(tree).walk(
        temp_found=lambda folder_fd, name, info: found.append(name))]
    assert listed == EXPECTED
    assert found == [".w.py.sari-tmp"]
