"""The files a session saw: the workspace at the session's commit, in a private copy.

When the workspace is a git repository, the session's commit is the last commit of its
recorded branch made before the session started, unless the user names one. When that
branch is gone (deleted, never fetched) or has no such commit, ``HEAD``'s is used and the
report says why: a deleted branch is never reported as if it had been found. A commit
whose tree is empty is replayed on an empty folder. Its tree is exported with ``git archive`` into a temporary folder outside the
workspace, so replayed edits and the index never touch the workspace; git itself is
only read (``GIT_OPTIONAL_LOCKS=0``: not even the index's stat cache is refreshed).
Files the session touched that differ between that commit and the workspace now are
reported, since the replay reads them as they were.

Without git, or with no commit before the session, the workspace is replayed as it is
now, and the report says so.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

GIT_TIMEOUT = 120


@dataclass
class Snapshot:
    """Where a group of sessions is replayed, and how that relates to the workspace.

    :ivar root: the folder the kernel serves (a temporary copy, or the workspace itself).
    :ivar commit: the commit exported, ``None`` when the workspace is used as it is.
    :ivar note: one sentence on how ``root`` was chosen.
    :ivar private: ``root`` is a temporary copy that may be written (replayed edits).
    """

    root: Path
    commit: str | None
    note: str
    private: bool = False
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", "-C", str(workspace), *args], capture_output=True, env=env,
                          timeout=GIT_TIMEOUT, check=False)


def is_git_work_tree(workspace: Path) -> bool:
    if shutil.which("git") is None:
        return False
    done = _git(workspace, "rev-parse", "--is-inside-work-tree")
    return done.returncode == 0 and done.stdout.strip() == b"true"


@dataclass(frozen=True)
class SessionCommit:
    """The commit a session is replayed at, and the words that say how it was chosen.

    :ivar commit: the commit, ``None`` when no commit precedes the session.
    :ivar where: where it was found: ``branch NAME`` or ``HEAD``.
    :ivar why: why not on the session's branch, when it was not (else empty).
    """

    commit: str | None
    where: str
    why: str = ""


def _last_before(workspace: Path, ref: str, started: str | None) -> str | None:
    args = ["rev-list", "-1"] + ([f"--before={started}"] if started else []) + [ref, "--"]
    done = _git(workspace, *args)
    commit = done.stdout.decode().strip()
    return commit if done.returncode == 0 and commit else None


def session_commit(workspace: Path, branch: str | None, started: str | None) -> SessionCommit:
    """The last commit of ``branch`` made before ``started``; else of ``HEAD``, saying why."""
    if not branch or branch == "HEAD":
        return SessionCommit(_last_before(workspace, "HEAD", started), "HEAD")
    if resolve_commit(workspace, branch) is None:
        why = f"branch {branch} is not in the repository (deleted, or never fetched)"
    else:
        found = _last_before(workspace, branch, started)
        if found is not None:
            return SessionCommit(found, f"branch {branch}")
        why = f"branch {branch} has no commit before the session"
    return SessionCommit(_last_before(workspace, "HEAD", started), "HEAD", why)


def resolve_commit(workspace: Path, name: str) -> str | None:
    done = _git(workspace, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
    return done.stdout.decode().strip() or None if done.returncode == 0 else None


def is_empty_tree(workspace: Path, commit: str) -> bool:
    done = _git(workspace, "ls-tree", "--name-only", commit)
    return done.returncode == 0 and not done.stdout.strip()


def export(workspace: Path, commit: str, note: str) -> Snapshot:
    """The tree of ``commit`` in a new temporary folder (outside the workspace)."""
    temp_root = Path(tempfile.gettempdir()).resolve()
    if temp_root == workspace or workspace in temp_root.parents:
        raise ValueError(f"the temporary folder {temp_root} is inside the workspace; set TMPDIR "
                         "to a folder outside it (the replay never writes into the workspace)")
    tmp = tempfile.TemporaryDirectory(prefix="sari-replay-")
    done = _git(workspace, "archive", "--format=tar", commit)
    if done.returncode != 0:
        tmp.cleanup()
        raise RuntimeError(f"git archive {commit} failed: {done.stderr.decode().strip()}")
    root = Path(tmp.name) / "tree"
    root.mkdir()
    if is_empty_tree(workspace, commit):
        # git archive writes no tar entries for an empty tree: nothing to extract.
        return Snapshot(root, commit, f"{note}; its tree holds no files", private=True,
                        _tmp=tmp)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(root, filter="data")
        else:  # Python < 3.10.12: git's own archive of its own tree, no outside links
            archive.extractall(root)  # noqa: S202
    return Snapshot(root, commit, note, private=True, _tmp=tmp)


def snapshot_for(workspace: Path, branch: str | None, started: str | None,
                 commit: str | None = None, as_is: bool = False) -> Snapshot:
    """Choose and prepare the files a session is replayed on.

    :param workspace: the user's workspace (never written).
    :param branch: the session's recorded git branch.
    :param started: the session's first timestamp (ISO 8601).
    :param commit: a commit the user named for every session.
    :param as_is: replay on the workspace as it is now.
    :return: the :class:`Snapshot` (close it when done).
    """
    if as_is:
        return Snapshot(workspace, None, "replayed on the workspace as it is now (--as-is)")
    if not is_git_work_tree(workspace):
        return Snapshot(workspace, None, "not a git repository: replayed on the workspace as "
                        "it is now; files may have changed since the session")
    if commit:
        resolved = resolve_commit(workspace, commit)
        if resolved is None:
            raise ValueError(f"{commit!r} is not a commit of {workspace}")
        return export(workspace, resolved, f"at commit {resolved[:12]} (--commit)")
    chosen = session_commit(workspace, branch, started)
    why = f"{chosen.why}: " if chosen.why else ""
    if chosen.commit is None:
        return Snapshot(workspace, None, f"{why}no commit before the session: replayed on the "
                        "workspace as it is now; files may have changed since the session")
    return export(workspace, chosen.commit, f"{why}at commit {chosen.commit[:12]}, the last "
                  f"on {chosen.where} before the session started")


def changed_since(workspace: Path, commit: str, paths: Iterable[str]) -> list[str]:
    """Which of ``paths`` differ between ``commit`` and the workspace's files now."""
    wanted = sorted(set(paths))
    if not wanted:
        return []
    done = _git(workspace, "diff", "--name-only", "--no-renames", commit, "--", *wanted)
    if done.returncode != 0:
        return []
    changed = set(done.stdout.decode().split("\n"))
    return [path for path in wanted if path in changed]
