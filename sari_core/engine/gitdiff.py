"""``read(mode='diff_preview')``: what changed in a file or folder, from git itself.

Baselines (``against``):

* ``HEAD`` — every change since the last commit, staged or not
  (``git diff HEAD``); untracked files appear as new files;
* ``INDEX`` — what is staged for the next commit (``git diff --cached``);
* ``WORKTREE`` — working-tree edits not staged yet (``git diff``); untracked
  files appear as new files.

The git CLI runs with a fixed environment (no pager, no colour, no external diff
driver, no optional locks) on a literal pathspec, so a path is never a pattern.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sari_core.engine.paths import ResolvedPath
from sari_core.errors import ErrorCode, SariError

GIT_TIMEOUT_SECONDS = 30
MAX_UNTRACKED_FILES = 50
EMPTY_TREE_SHA1 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@dataclass(frozen=True)
class DiffPreview:
    diff: str
    files: list[str]
    added: int
    removed: int
    repo_root: Path


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_PAGER": "cat", "PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0",
                "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANG": "C"})
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EXTERNAL_DIFF"):
        env.pop(key, None)
    return env


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    git = shutil.which("git")
    if git is None:
        raise SariError(ErrorCode.GIT_UNAVAILABLE, "diff_preview needs git, and git is not "
                        "installed here.", "Install git, or read the file with mode='file'.")
    try:
        return subprocess.run(
            [git, "-c", "core.quotepath=off", "-c", "color.ui=never", "-c", "diff.noprefix=false",
             *args], cwd=cwd, env=_environment(), capture_output=True, timeout=GIT_TIMEOUT_SECONDS,
            check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SariError(ErrorCode.GIT_UNAVAILABLE, f"git {args[0]} took longer than "
                        f"{GIT_TIMEOUT_SECONDS}s.", "Narrow the target to one file.") from None
    except OSError as exc:
        raise SariError(ErrorCode.GIT_UNAVAILABLE, f"git could not run: {exc}.",
                        "Check the git installation.") from None


def _git(args: list[str], cwd: Path, ok_codes: tuple[int, ...] = (0,)) -> str:
    done = _run(args, cwd)
    if done.returncode not in ok_codes:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SariError(ErrorCode.GIT_UNAVAILABLE, f"git {args[0]} failed: "
                        f"{message[-1] if message else done.returncode}.",
                        "Check the repository's state with git status.")
    return done.stdout.decode("utf-8", "replace")


def repository_root(folder: Path) -> Path:
    """The top of the git work tree holding ``folder``, or NOT_A_GIT_REPOSITORY."""
    done = _run(["rev-parse", "--show-toplevel"], folder)
    top = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0 or not top:
        raise SariError(ErrorCode.NOT_A_GIT_REPOSITORY,
                        "the target is not inside a git repository, so there is no baseline "
                        "to diff against.", "Read the file with mode='file' instead, or run "
                        "git init and commit.")
    return Path(os.path.realpath(top))


def _head_or_empty_tree(repo: Path) -> str:
    done = _run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repo)
    if done.returncode == 0:
        return done.stdout.decode().strip()
    # An unborn branch: diff against the empty tree of this repository's object format.
    empty = _run(["hash-object", "-t", "tree", "--stdin"], repo)
    return empty.stdout.decode().strip() if empty.returncode == 0 else EMPTY_TREE_SHA1


def diff_preview(target: ResolvedPath, against: str) -> DiffPreview:
    folder = target.abs if target.abs.is_dir() else target.abs.parent
    repo = repository_root(folder)
    spec = target.abs.relative_to(repo).as_posix() if target.abs != repo else "."
    pathspec = f":(literal){spec}" if spec != "." else "."
    base = ["diff", "--no-ext-diff", "--no-color", "--no-textconv"]
    if against == "HEAD":
        diff = _git([*base, _head_or_empty_tree(repo), "--", pathspec], repo)
    elif against == "INDEX":
        diff = _git([*base, "--cached", _head_or_empty_tree(repo), "--", pathspec], repo)
    else:
        diff = _git([*base, "--", pathspec], repo)
    if against in ("HEAD", "WORKTREE"):
        untracked = _git(["ls-files", "--others", "--exclude-standard", "-z", "--", pathspec],
                         repo).split("\0")
        for path in [p for p in untracked if p][:MAX_UNTRACKED_FILES]:
            diff += _git(["diff", "--no-index", "--no-ext-diff", "--no-color", "--",
                          os.devnull, path], repo, ok_codes=(0, 1))
    files, added, removed = _stats(diff)
    return DiffPreview(diff, files, added, removed, repo)


def _stats(diff: str) -> tuple[list[str], int, int]:
    files: list[str] = []
    added = removed = 0
    before = ""
    for line in diff.split("\n"):
        if line.startswith("--- "):
            before = line[4:]
        elif line.startswith("+++ "):
            name = line[4:] if line[4:] != "/dev/null" else before
            files.append(name[2:] if name.startswith(("a/", "b/")) else name)
        elif line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return files, added, removed
