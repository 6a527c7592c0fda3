"""ripgrep for the scan: where ``rg`` is, the command lines a scan runs, and scans started early.

A scan's time is mostly ripgrep's; a one-shot command line can start the very ``rg`` its
search will run before the rest of Sari is even imported (:func:`start_early`), and the
scan then takes that process's output instead of starting another (:func:`run`): rg reads
the tree while Python loads. Only an identical command line is taken, so the answer is the
one a scan started late would give. An early process's output is read as it comes, on a
thread of its own: a broad query's lines fill a pipe long before Python has loaded, and
rg would otherwise wait for the scan to start reading. This module imports nothing of Sari
but the file-set bounds, so starting early costs next to nothing.
"""

from __future__ import annotations

import atexit
import io
import os
import selectors
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

from sari_core.engine.files.fileset import DEFAULT_EXCLUDED_DIRS, MAX_INDEX_BYTES

LINES_PER_FILE = 20  # line hits kept per file (what ranking looks at)
PREVIEW_COLUMNS = 400  # longer lines come back cut (minified code)


class _EarlyScan:
    """An ``rg`` started before its scan, its output read meanwhile (see :func:`start_early`)."""

    def __init__(self, command: tuple[str, ...]) -> None:
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self._chunks: list[bytes] = []
        self._reader = threading.Thread(target=self._read, name="sari-early-rg", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert isinstance(stdout, io.BufferedReader)  # what Popen's default buffering makes
        with stdout:
            while chunk := stdout.read1(1 << 16):  # releases the GIL while it waits
                self._chunks.append(chunk)

    def output(self, timeout: float | None) -> tuple[bytes, int | None]:
        """What rg printed and its exit status; past ``timeout`` rg is stopped (status None)."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self._reader.join()
            return b"".join(self._chunks), None
        self._reader.join()
        return b"".join(self._chunks), self.process.returncode

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self._reader.join()


_early: dict[tuple[str, ...], _EarlyScan] = {}


@cache
def ripgrep() -> str | None:
    """The ``rg`` binary: the ripgrep wheel's (next to this interpreter), else the PATH's."""
    import sysconfig  # (slow to import; only the first scan needs it)

    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def base_command(binary: str, extra_excludes: Sequence[str]) -> list[str]:
    """rg over the workspace's file set: hidden files, ``.gitignore`` with or without git,
    the default exclusions and the workspace's own as globs, the index's size limit."""
    command = [binary, "--no-config", "--hidden", "--no-require-git", "--no-ignore-dot",
               "--no-ignore-global", "--no-ignore-parent", "--no-messages",
               "--max-filesize", str(MAX_INDEX_BYTES), "--color", "never"]
    for name in sorted(DEFAULT_EXCLUDED_DIRS):
        command += ["--glob", f"!{name}/"]
    for line in extra_excludes:  # a re-inclusion ("!") cannot be a glob: skipped, and
        line = line.strip()       # the scan's own ignore check has the last word anyway
        if line and not line.startswith(("#", "!")):
            command += ["--glob", f"!{line}"]
    return command


def lines_command(binary: str, extra_excludes: Sequence[str]) -> list[str]:
    """rg printing each file's first matching lines: ``path NUL number:text``."""
    return [*base_command(binary, extra_excludes), "--null", "--line-number", "--no-heading",
            "--with-filename", "--max-count", str(LINES_PER_FILE),
            "--max-columns", str(PREVIEW_COLUMNS), "--max-columns-preview"]


def with_pattern(command: Sequence[str], pattern: str, *, regex: bool, case_sensitive: bool,
                 roots: Sequence[str]) -> list[str]:
    """``command`` searching ``roots`` for ``pattern``."""
    return [*command, *([] if regex else ["--fixed-strings"]),
            "--case-sensitive" if case_sensitive else "--ignore-case",
            "--regexp", pattern, "--", *roots]


def scannable(pattern: str) -> bool:
    """Whether rg can look for ``pattern`` as the index would: rg matches UTF-8 bytes while
    the index decodes legacy encodings (Latin-1...), so a non-ASCII pattern is matched on
    decoded text instead; and a NUL cannot be passed as an argument."""
    return pattern.isascii() and "\x00" not in pattern


def start_early(command: Sequence[str]) -> None:
    """Start ``command`` now; :func:`run` of the same command takes its output. A process
    nobody takes is stopped when the interpreter exits."""
    key = tuple(command)
    if key in _early:
        return
    try:
        _early[key] = _EarlyScan(key)
    except OSError:
        return  # the late scan starts its own and reports what went wrong
    if len(_early) == 1:
        atexit.register(stop_unused)


def stop_unused() -> None:
    """Stop the early processes no scan took (the call was refused, or scanned otherwise)."""
    for early in _early.values():
        early.stop()
    _early.clear()


def run(command: Sequence[str], timeout: float | None) -> tuple[bytes, int | None]:
    """(stdout, exit status) of ``command``, taking the process :func:`start_early` started
    for the same command when there is one; past ``timeout`` the process is stopped and the
    status is None (stdout then holds what it printed by then)."""
    early = _early.pop(tuple(command), None)
    if early is not None:
        return early.output(timeout)
    process = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        stdout, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, _ = process.communicate()
        return stdout or b"", None
    return stdout, process.returncode


class Streamed:
    """``command``'s output in blocks of whole records (each ending with ``record_end``) as rg
    prints them, so the caller parses them while rg still scans (a broad query prints
    megabytes); an early process's output is taken as :func:`run` takes it.

    :ivar status: once iterated, rg's exit status; None past ``timeout`` (rg stopped, the
        whole records printed by then yielded).
    """

    def __init__(self, command: Sequence[str], timeout: float | None,
                 record_end: bytes = b"\n") -> None:
        self.command = tuple(command)
        self.timeout = timeout
        self.record_end = record_end
        self.status: int | None = None

    def __iter__(self) -> Iterator[bytes]:
        if tuple(self.command) in _early or os.name == "nt":  # (no select on Windows pipes)
            stdout, self.status = run(self.command, self.timeout)
            yield stdout if self.status is not None else stdout.rpartition(self.record_end)[0]
            return
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        pending = b""
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(process.stdout.fileno(), selectors.EVENT_READ)
                while deadline is None or time.monotonic() < deadline:
                    wait = None if deadline is None else max(deadline - time.monotonic(), 0)
                    if not selector.select(wait):
                        continue
                    chunk = os.read(process.stdout.fileno(), 1 << 16)
                    if not chunk:  # rg is done
                        self.status = process.wait()
                        if pending:
                            yield pending
                        return
                    pending += chunk
                    cut = pending.rfind(self.record_end) + 1
                    if cut:
                        block, pending = pending[:cut], pending[cut:]
                        yield block
        finally:
            if process.poll() is None:  # past the deadline, or the caller stopped reading
                process.kill()
                process.wait()
            process.stdout.close()
