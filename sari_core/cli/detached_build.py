"""The index build a one-shot command leaves running after its answer.

``sari search`` on a never-indexed workspace answers from a scan and gives the shell back
at once: the build goes on in a process of its own, in a session of its own (no terminal
to hold, no signal from the shell's job control), at a lower CPU priority. That process
holds an exclusive lock on a file beside the index while it builds, so a second command
neither starts a second build nor mistakes a running one for a dead one: it answers from a
scan again, and starts a new build only when none holds the lock (a build killed before
its end is continued: the refresh is incremental). The build's messages go to a log file
beside the index. Where file locks are not available (not POSIX) the command builds in the
foreground, as before.

Run as ``python -m sari_core.cli.detached_build ROOT``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

BUILD_NICENESS = 10
LOCK_SUFFIX = ".build.lock"
LOG_SUFFIX = ".build.log"
LOCK_FD_FLAG = "--lock-fd"
# ``-m`` puts the working folder first on the module path: started in a workspace holding
# another sari_core (a checkout of another version), the build would run that one. It
# starts in the folder holding this package instead.
PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + LOCK_SUFFIX)


def log_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + LOG_SUFFIX)


@contextlib.contextmanager
def build_lock(index_path: Path, *, wait: bool) -> Iterator[int | bool]:
    """Hold the build lock of ``index_path`` while inside. :return: (as the context's value)
    the locked file's descriptor, or (without ``wait``) False when another process holds
    it; True where there are no file locks."""
    if fcntl is None:  # pragma: no cover - Windows
        yield True
        return
    path = lock_path(index_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield fd
    finally:
        os.close(fd)  # (releases the lock)


def build_running(index_path: Path) -> bool:
    """Whether a process holds the build lock of ``index_path`` now."""
    if fcntl is None or not lock_path(index_path).exists():
        return False
    with build_lock(index_path, wait=False) as held:
        return not held


def available() -> bool:
    """Whether a build can go on detached here (file locks and sessions: POSIX)."""
    return fcntl is not None and os.name == "posix"


def start(root: Path, index_path: Path) -> int | None:
    """Start the detached build of ``root`` unless one runs already.

    The lock is taken here and handed to the new process (it inherits the locked file), so
    from this call's return a later command sees the build running, with no gap before the
    new process would have taken it itself.

    :return: the new process's id, or None when a build was already running.
    """
    index_path.parent.mkdir(parents=True, exist_ok=True)
    with build_lock(index_path, wait=False) as held:
        if not held:
            return None
        fd = held if isinstance(held, int) and not isinstance(held, bool) else None
        with open(log_path(index_path), "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(root), *([LOCK_FD_FLAG, str(fd)]
                                                             if fd is not None else [])],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                close_fds=True, pass_fds=() if fd is None else (fd,), cwd=PACKAGE_PARENT)
    return process.pid


def build(root: Path, lock_fd: int | None) -> int:
    """Build or refresh ``root``'s index under its build lock (given as the inherited,
    locked ``lock_fd``, or taken here: another holder means nothing to do, that build goes
    on). :return: the exit status."""
    from sari_core.engine import Workspace
    from sari_core.engine.files.exclusions import ExcludeError, configured_excludes
    from sari_core.engine.index.schema import default_index_path

    with contextlib.suppress(OSError, AttributeError):
        os.nice(BUILD_NICENESS)
    index_path = default_index_path([root])
    with contextlib.ExitStack() as stack:
        if lock_fd is not None:
            stack.callback(os.close, lock_fd)  # (releases the lock at the end)
        elif not stack.enter_context(build_lock(index_path, wait=False)):
            return 0
        try:
            exclude = configured_excludes(root)
        except ExcludeError as exc:  # the call that started the build said so already
            print(f"sari: {exc}", file=sys.stderr)
            return 1
        with Workspace([root], exclude=exclude, one_call=True) as engine:
            stats = engine.ensure_index(progress=False)
        print(f"sari: indexed {stats.indexed:,} of {stats.files:,} files in "
              f"{stats.seconds:.1f}s", file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    lock_fd = int(argv[argv.index(LOCK_FD_FLAG) + 1]) if LOCK_FD_FLAG in argv else None
    return build(Path(argv[0]).resolve(), lock_fd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
