"""Workspaces on disk for the plugin tests: files in a committed git repository.

The real engine (``sari_core.engine.Workspace``) indexes a folder and answers
``diff_preview`` against a git revision, so a test workspace is a small repository
whose first commit holds the fixture files.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from pathlib import Path

from sari_core.engine import Workspace

# Modules of the running Python's standard library: real code of a few hundred KB.
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_COPIED = ("json", "csv.py", "textwrap.py", "shlex.py", "configparser.py")


def write_files(root: Path, files: dict[str, str], *, keep_existing: bool = False) -> None:
    """Write ``files`` (relative path -> text) below ``root``.

    :param keep_existing: leave a file that is already there as it is (a test changed
        it on purpose, and a second engine over the same folder must see the change).
    """
    for relative, text in files.items():
        path = root / relative
        if keep_existing and path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def commit_all(root: Path, message: str = "fixture") -> None:
    """Make ``root`` a git repository if it is none, and commit everything in it.

    The commit is made even when nothing changed, so it never fails for that.
    """
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", message], check=True)


def git_repository(root: Path, files: dict[str, str], *, keep_existing: bool = False,
                   commit_every_time: bool = False) -> Path:
    """``files`` written below ``root``, which becomes a git repository with them committed.

    By default only the call that creates the repository commits: files a later call
    writes again, or that a test changed, stay uncommitted changes against that first
    commit (what ``diff_preview`` shows).

    :param keep_existing: see :func:`write_files`.
    :param commit_every_time: commit on every call, so HEAD is always what was written.
    """
    new = not (root / ".git").exists()
    write_files(root, files, keep_existing=keep_existing)
    if new or commit_every_time:
        commit_all(root)
    return root


def engine_over(root: Path, files: dict[str, str], *, keep_existing: bool = False,
                commit_every_time: bool = False) -> Workspace:
    """The real engine over :func:`git_repository` ``(root, files)``."""
    git_repository(root, files, keep_existing=keep_existing,
                   commit_every_time=commit_every_time)
    return Workspace([root])


def stdlib_repository(root: Path) -> Path:
    """A git repository at ``root`` (created) holding a copy of :data:`STDLIB_COPIED`."""
    root.mkdir()
    for name in STDLIB_COPIED:
        source = STDLIB / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, root / name)
    commit_all(root, "stdlib copy")
    return root
