"""Write a project's commit history as ``commit_rounds`` JSON lines for ``bench/cache_sim.py``.

The newest ``--rounds`` first-parent commits up to ``--until``, oldest first. Line 1 is a
header (``repo``, ``first_commit``, ``last_commit``, ``rounds``); every other line is one
commit: ``{"commit", "date", "files": [{"path", "status": "A"|"M"|"D", "bytes"}]}`` where
``bytes`` is the file's size after the commit (0 when deleted). Renames count as a deletion
and an addition; binary files are left out. Only paths and sizes are written, no contents.

    python bench/commit_rounds.py GIT_DIR --repo owner/name --until COMMIT > name.jsonl

Reads a local clone only (``git`` on PATH); nothing is downloaded. ``--smoke`` writes the
rounds of a three-commit scratch repository instead (an addition, a change beside a binary
file, a deletion): checks the script works (CI).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True,
                          capture_output=True, text=True).stdout


def _sizes(git_dir: Path, blobs: list[str]) -> dict[str, int]:
    if not blobs:
        return {}
    out = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch-check"],
                         input="\n".join(blobs) + "\n", check=True, capture_output=True,
                         text=True).stdout
    sizes = {}
    for line in out.splitlines():
        sha, _kind, size = line.split()
        sizes[sha] = int(size)
    return sizes


def _diff(git_dir: Path, against: list[str]) -> dict[str, tuple[str, str]]:
    """path -> (status, new blob) for the text files changed between two trees."""
    base = ["diff-tree", "-r", "--no-renames", "--root", "-z", "--no-commit-id"]
    binary = set()
    for field in _git(git_dir, *base, "--numstat", *against).split("\0"):
        parts = field.split("\t")
        if len(parts) == 3 and parts[0] == "-" and parts[1] == "-":
            binary.add(parts[2])
    raw = _git(git_dir, *base, "--raw", *against).split("\0")
    changes: dict[str, tuple[str, str]] = {}
    for meta, path in zip(raw[0::2], raw[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        _old_mode, new_mode, _old_sha, new_sha, status = meta[1:].split()
        if path not in binary and new_mode != "160000" and status[0] in "AMD":
            changes[path] = (status[0], new_sha)
    return changes


def commit_files(git_dir: Path, commit: str) -> list[dict[str, Any]]:
    """The text files a commit adds, modifies or deletes against any of its parents.

    A merge lists the files that differ from either parent (the first parent's status wins):
    both sides' files are the ones in play when the merge is made.
    """
    parents = _git(git_dir, "rev-list", "--parents", "-n", "1", commit).split()[1:]
    changes: dict[str, tuple[str, str]] = {}
    for against in ([[parent, commit] for parent in parents] or [[commit]]):
        for path, change in _diff(git_dir, against).items():
            changes.setdefault(path, change)
    sizes = _sizes(git_dir, sorted({sha for status, sha in changes.values() if status != "D"}))
    return [{"path": path, "status": status, "bytes": 0 if status == "D" else sizes[sha]}
            for path, (status, sha) in sorted(changes.items())]


def smoke_repository(folder: Path) -> Path:
    """A scratch repository of three commits: add, modify (plus a binary file), delete."""
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(folder), "-c", "user.name=bench",
                        "-c", "user.email=bench@example.invalid", *args],
                       check=True, capture_output=True)
    git("init", "-q")
    steps = ({"a.py": "x = 1\n", "b.py": "y = 2\n"}, {"a.py": "x = 10\n", "logo.bin": None},
             {"b.py": ""})
    for number, step in enumerate(steps):
        for name, text in step.items():
            if text == "":
                (folder / name).unlink()
            elif text is None:
                (folder / name).write_bytes(bytes(range(256)))
            else:
                (folder / name).write_text(text, encoding="utf-8")
        git("add", "-A")
        git("commit", "-q", "-m", f"round {number}")
    return folder / ".git"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", type=Path, nargs="?",
                        help="a .git folder or bare repository")
    parser.add_argument("--repo", help="owner/name for the header")
    parser.add_argument("--until", default="HEAD", help="the newest commit (pin it)")
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--smoke", action="store_true",
                        help="a three-commit scratch repository: checks the script works (CI)")
    options = parser.parse_args(argv)
    if options.smoke:
        with tempfile.TemporaryDirectory(prefix="sari-bench-rounds-") as scratch:
            options.git_dir, options.repo = smoke_repository(Path(scratch)), "smoke/rounds"
            return write_rounds(options)
    if options.git_dir is None or options.repo is None:
        parser.error("GIT_DIR and --repo are required (or --smoke)")
    return write_rounds(options)


def write_rounds(options: argparse.Namespace) -> int:
    commits = _git(options.git_dir, "rev-list", "--first-parent", f"-n{options.rounds}",
                   options.until).split()[::-1]
    print(json.dumps({"repo": options.repo, "first_commit": commits[0],
                      "last_commit": commits[-1], "rounds": len(commits)}))
    for commit in commits:
        date = _git(options.git_dir, "show", "-s", "--format=%cI", commit).strip()
        files = commit_files(options.git_dir, commit)
        print(json.dumps({"commit": commit, "date": date, "files": files},
                         separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
