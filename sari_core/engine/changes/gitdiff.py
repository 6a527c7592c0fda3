"""``read(mode='diff_preview')``: what changed in a file or folder, from git itself.

Baselines (``against``):

* ``HEAD`` — every change since the last commit, staged or not
  (``git diff HEAD``); untracked files appear as new files;
* ``INDEX`` — what is staged for the next commit (``git diff --cached``);
* ``WORKTREE`` — working-tree edits not staged yet (``git diff``); untracked
  files appear as new files.

git runs only on the workspace's own repository (the nearest ``.git`` at the
workspace root or above, found by Sari and passed as ``GIT_DIR``/``GIT_WORK_TREE``,
so a repository planted in a subfolder is never used — a target inside one is
refused — nor a bare one planted at the root). Nothing that can run a command is taken from the workspace: filter
drivers are blanked, external diff drivers and textconv are off, fsmonitor and
hooks are disabled; the environment is fixed (no pager, no colour, no optional
locks) and the pathspec is literal, so a path is never a pattern.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sari_core.engine.files.paths import ResolvedPath
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


# Configuration that would make a read-only diff run a program; always overridden.
_SAFE_CONFIG = ("core.fsmonitor=false", "core.hooksPath=" + os.devnull, "diff.external=",
                "core.untrackedCache=false", "core.quotepath=off", "color.ui=never",
                "diff.noprefix=false")
_FILTER_COMMANDS = ("clean", "smudge", "process")


@dataclass(frozen=True)
class Repository:
    """A git repository: its metadata folder and the top of its work tree."""

    git_dir: Path
    top: Path


def _environment(repo: Repository | None) -> dict[str, str]:
    # No GIT_* variable of the server's environment reaches git: each could redirect it.
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"GIT_PAGER": "cat", "PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0",
                "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANG": "C"})
    if repo is not None:
        env.update({"GIT_DIR": str(repo.git_dir), "GIT_WORK_TREE": str(repo.top)})
    return env


def _run(args: list[str], cwd: Path, repo: Repository | None = None,
         config: tuple[str, ...] = ()) -> subprocess.CompletedProcess[bytes]:
    git = shutil.which("git")
    if git is None:
        raise SariError(ErrorCode.GIT_UNAVAILABLE, "diff_preview needs git, and git is not "
                        "installed here.", "Install git, or read the file with mode='file'.")
    overrides = [part for item in (*_SAFE_CONFIG, *config) for part in ("-c", item)]
    try:
        return subprocess.run(
            [git, *overrides, *args], cwd=cwd, env=_environment(repo), capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SariError(ErrorCode.GIT_UNAVAILABLE, f"git {args[0]} took longer than "
                        f"{GIT_TIMEOUT_SECONDS}s.", "Narrow the target to one file.") from None
    except OSError as exc:
        raise SariError(ErrorCode.GIT_UNAVAILABLE, f"git could not run: {exc.strerror}.",
                        "Check the git installation.") from None


def _git(args: list[str], repo: Repository, config: tuple[str, ...] = (),
         ok_codes: tuple[int, ...] = (0,)) -> str:
    done = _run(args, repo.top, repo, config)
    if done.returncode not in ok_codes:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SariError(ErrorCode.GIT_UNAVAILABLE, f"git {args[0]} failed: "
                        f"{message[-1] if message else done.returncode}.",
                        "Check the repository's state with git status.")
    return done.stdout.decode("utf-8", "replace")


def repository_of(root: Path) -> Repository:
    """The repository holding workspace root ``root``, or NOT_A_GIT_REPOSITORY.

    Sari finds it itself: the nearest ``.git`` (a folder, or a file naming one) at the
    root or above, handed to git as ``GIT_DIR`` with its folder as the work tree. git's
    own discovery would also take a folder holding ``HEAD``, ``objects`` and ``refs`` for
    a bare repository — files the agent can write at the workspace root — and read the
    ``config`` beside them.
    """
    for folder in (root, *root.parents):
        dotgit = folder / ".git"
        if not os.path.lexists(dotgit):
            continue
        candidate = Repository(dotgit, folder)
        done = _run(["rev-parse", "--absolute-git-dir"], folder, candidate)
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        if done.returncode == 0 and lines and lines[0]:
            return Repository(Path(os.path.realpath(lines[0])), Path(os.path.realpath(folder)))
        break  # a broken .git: git would stop here too
    raise SariError(ErrorCode.NOT_A_GIT_REPOSITORY,
                    "the workspace is not inside a git repository, so there is no baseline "
                    "to diff against.", "Read the file with mode='file' instead, or run "
                    "git init and commit.")


def _nested_repository(target: ResolvedPath, repo: Repository) -> str | None:
    """The folder (relative to the root) of a repository nested between the workspace's
    repository and ``target``, or None."""
    parts = target.rel.split("/") if target.rel else []
    folders = parts if target.abs.is_dir() else parts[:-1]
    for depth in range(len(folders), 0, -1):
        folder = target.root.joinpath(*folders[:depth])
        if folder != repo.top and os.path.lexists(folder / ".git"):
            return "/".join(folders[:depth])
    return None


def _blanked_filters(repo: Repository) -> tuple[str, ...]:
    """``-c`` values that switch off every filter driver the configuration defines (an
    attributes file in the workspace may select any of them)."""
    done = _run(["config", "--name-only", "--get-regexp", r"^filter\."], repo.top, repo)
    names = done.stdout.decode("utf-8", "replace").split() if done.returncode == 0 else []
    drivers = {name.rsplit(".", 1)[0] for name in names if name.count(".") >= 2}
    return tuple(f"{driver}.{command}=" for driver in sorted(drivers)
                 for command in _FILTER_COMMANDS)


def _head_or_empty_tree(repo: Repository) -> str:
    done = _run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repo.top, repo)
    if done.returncode == 0:
        return done.stdout.decode().strip()
    # An unborn branch: diff against the empty tree of this repository's object format.
    empty = _run(["hash-object", "-t", "tree", "--stdin"], repo.top, repo)
    return empty.stdout.decode().strip() if empty.returncode == 0 else EMPTY_TREE_SHA1


def diff_preview(target: ResolvedPath, against: str) -> DiffPreview:
    repo = repository_of(target.root)
    nested = _nested_repository(target, repo)
    if nested is not None:
        raise SariError(ErrorCode.NOT_A_GIT_REPOSITORY,
                        f"{target.display!r} is inside {nested!r}, a repository nested in the "
                        "workspace; diff_preview only diffs the workspace's own repository.",
                        "Read the file with mode='file' instead.")
    config = _blanked_filters(repo)
    spec = target.abs.relative_to(repo.top).as_posix() if target.abs != repo.top else "."
    pathspec = f":(literal){spec}" if spec != "." else "."
    base = ["diff", "--no-ext-diff", "--no-color", "--no-textconv"]
    if against == "HEAD":
        diff = _git([*base, _head_or_empty_tree(repo), "--", pathspec], repo, config)
    elif against == "INDEX":
        diff = _git([*base, "--cached", _head_or_empty_tree(repo), "--", pathspec], repo,
                    config)
    else:
        diff = _git([*base, "--", pathspec], repo, config)
    if against in ("HEAD", "WORKTREE"):
        untracked = _git(["ls-files", "--others", "--exclude-standard", "-z", "--", pathspec],
                         repo, config).split("\0")
        for path in [p for p in untracked if p and not p.endswith("/")][:MAX_UNTRACKED_FILES]:
            diff += _git([*base, "--no-index", "--", os.devnull, path], repo, config,
                         ok_codes=(0, 1))
    files, added, removed = _stats(diff)
    return DiffPreview(diff, files, added, removed, repo.top)


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
