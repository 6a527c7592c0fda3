"""``edit`` and ``write``: planned (checked, nothing written) then applied atomically.

``edit`` replaces an exact string, and only when it occurs exactly
``expected_occurrences`` times (absent: ``EDIT_NO_MATCH``; another count:
``EDIT_AMBIGUOUS``, each with a hint naming lines). ``write`` creates or
overwrites a whole file inside the workspace. Both keep what the file was: its
line endings (a CRLF file stays CRLF even when the agent sends ``\\n``), its
encoding (BOM included) and its permission bits. A write goes to a temporary
file in the same folder, is flushed to disk, then renamed over the target, so a
reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import sys
import tempfile
import threading
from pathlib import Path

from sari_core.engine.files import fdwalk
from sari_core.engine.files.paths import PathGuard, ResolvedPath, canonical, os_error
from sari_core.engine.files.textfile import TextFile, encode, load_fd, split_lines
from sari_core.errors import ErrorCode, SariError
from sari_core.models import FileChange, MutationCall, NextCall

MAX_EDIT_BYTES = 16 * 1024 * 1024
_UMASK_LOCK = threading.Lock()


def uses_crlf(text: str) -> bool:
    """True when every line break of ``text`` is CRLF (mixed files are left as they are)."""
    breaks = text.count("\n")
    return breaks > 0 and text.count("\r\n") == breaks


def to_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


# A new file is rw-r--r-- at most (the umask only takes away); no file the agent wrote
# is left executable, setuid or setgid unless the operator keeps those bits.
NEW_FILE_MODE = 0o644
NOT_EXECUTABLE = 0o666


def written_mode(current: int | None, keep_executable_bits: bool) -> int:
    """The permission bits a written file gets, from those it had (None: a new file)."""
    if current is None:
        return NEW_FILE_MODE & ~_umask()
    return current if keep_executable_bits else current & NOT_EXECUTABLE


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        current = os.umask(0o022)
        os.umask(current)
    return current


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _no_match(display: str, text: str, old: str) -> SariError:
    lines = split_lines(text)
    hint = "Read the current text first and copy old_string exactly, including indentation."
    calls: list[NextCall] = []
    squeeze = " ".join(old.split())
    if squeeze and squeeze in " ".join(text.split()):
        hint = ("old_string matches only when whitespace is ignored: check its indentation, "
                "spaces and line breaks against the file.")
    first = next((line.strip() for line in old.split("\n") if line.strip()), "")
    if first:
        stripped = [line.strip() for line in lines]
        found = [n for n, line in enumerate(stripped, 1) if first in line]
        if not found:
            close = difflib.get_close_matches(first, stripped, n=1, cutoff=0.6)
            found = [stripped.index(close[0]) + 1] if close else []
            if found:
                # The line number only: a hint never quotes the file, which a read
                # policy (a secret file) may refuse to show; the read below is checked.
                hint += f" The closest line is {found[0]}."
        else:
            hint += f" Its first line appears at line {found[0]}."
        if found:
            start = max(1, found[0] - 5)
            calls.append(NextCall(tool="read", arguments={
                "mode": "snippet", "target": display, "start_line": start,
                "end_line": start + 5 + max(old.count("\n"), 1) + 5}))
    return SariError(ErrorCode.EDIT_NO_MATCH, f"old_string was not found in {display!r}; "
                     "nothing was changed.", hint, calls)


class Mutator:
    """Plans and applies edits and writes inside the workspace roots."""

    def __init__(self, guard: PathGuard, keep_executable_bits: bool = False) -> None:
        self.guard = guard
        self.keep_executable_bits = keep_executable_bits

    # --- planning -------------------------------------------------------------------

    def plan(self, call: MutationCall) -> list[FileChange]:
        for text in (call.content, call.old_string, call.new_string):
            if text is not None and not _encodable(text):
                raise SariError(ErrorCode.INVALID_ARGS, "the text contains a lone surrogate, "
                                "which no file encoding can hold; nothing was changed.",
                                "Send the text as valid Unicode (pairs of surrogates "
                                "combined into one character).")
        if call.tool == "edit":
            return [self._plan_edit(call)]
        return [self._plan_write(call)]

    def _existing(self, target: ResolvedPath) -> TextFile:
        fd = self.guard.open_file(target.root_index, target.rel, target.display)
        return load_fd(fd, target.display, max_bytes=MAX_EDIT_BYTES)

    def _plan_edit(self, call: MutationCall) -> FileChange:
        target = self.guard.resolve(call.path, for_write=True)
        current = self._existing(target)
        text = current.text
        old, new = call.old_string or "", call.new_string or ""
        if uses_crlf(text):
            old, new = to_crlf(old), to_crlf(new)
        count = text.count(old)
        if count == 0:
            raise _no_match(target.display, text, old)
        if count != call.expected_occurrences:
            lines, position = [], text.find(old)
            while position != -1 and len(lines) < 20:
                lines.append(_line_of(text, position))
                position = text.find(old, position + len(old))
            where = ", ".join(map(str, lines))
            raise SariError(
                ErrorCode.EDIT_AMBIGUOUS,
                f"old_string occurs {count} times in {target.display!r} (lines {where}), "
                f"expected {call.expected_occurrences}; nothing was changed.",
                "Add surrounding lines to old_string so it matches once, or set "
                f"expected_occurrences={count} to replace every occurrence.",
                details={"occurrences": count, "lines": lines})
        return FileChange(path=target.display, abs_path=str(target.abs), old_text=text,
                          new_text=text.replace(old, new))

    def _plan_write(self, call: MutationCall) -> FileChange:
        target = self.guard.resolve(call.path, must_exist=False, for_write=True)
        content = call.content or ""
        if not target.rel:
            raise SariError(ErrorCode.NOT_A_FILE, "write needs a file path, not the workspace "
                            "root.", "Name the file to write, e.g. 'src/new_module.py'.")
        if os.path.lexists(target.abs):
            self.guard.resolve(call.path, for_write=True)  # regular file, else NOT_A_FILE
            old = self._existing(target).text
            if uses_crlf(old) and "\r\n" not in content:
                content = to_crlf(content)
            return FileChange(path=target.display, abs_path=str(target.abs), old_text=old,
                              new_text=content)
        self._check_parents(target)
        return FileChange(path=target.display, abs_path=str(target.abs), old_text=None,
                          new_text=content)

    def _check_parents(self, target: ResolvedPath) -> None:
        try:
            self._check_parent_folders(target)
        except OSError as exc:
            raise os_error(exc, target.display) from None

    def _check_parent_folders(self, target: ResolvedPath) -> None:
        parent = target.abs.parent
        while not parent.exists():
            if os.path.lexists(parent):  # a dangling symlink on the way
                raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                                f"{target.display!r} goes through a broken symlink.",
                                "Write to a path whose folders are real folders.")
            parent = parent.parent
        if not parent.is_dir():
            blocker = self.guard.display(target.root_index,
                                         parent.relative_to(target.root).as_posix())
            raise SariError(ErrorCode.NOT_A_FILE, f"{blocker!r} is a file, so "
                            f"{target.display!r} cannot be created below it.",
                            "Choose a path whose parent is a folder.")

    # --- applying -------------------------------------------------------------------

    def apply(self, changes: list[FileChange]) -> list[ResolvedPath]:
        """Write every planned change; refuse a change whose file moved on since planning."""
        written = []
        for change in changes:
            target = self.guard.resolve(change.path, must_exist=False, for_write=True)
            if target.abs != canonical(change.abs_path):
                raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                                f"{change.path!r} no longer resolves to the planned file.",
                                "Plan the change again.")
            self._apply_one(target, change)
            written.append(target)
        return written

    def _apply_one(self, target: ResolvedPath, change: FileChange) -> None:
        # Everything happens in the file's folder as held by a descriptor (reached without
        # following a symlink): a folder swapped meanwhile cannot redirect the write.
        with self.guard.folder_of(target, create=change.new_text is not None) as folder:
            current, mode = self._current(folder, target)
            if (current.text if current else None) != change.old_text:
                raise SariError(ErrorCode.EDIT_NO_MATCH,
                                f"{target.display!r} changed on disk since the change was "
                                "planned; nothing was written.",
                                "Read the file again and redo the change.",
                                [NextCall(tool="read", arguments={"mode": "file",
                                                                  "target": target.display})])
            try:
                self._replace(folder, target, current,
                              written_mode(mode, self.keep_executable_bits), change.new_text)
            except OSError as exc:
                raise os_error(exc, target.display) from None

    def _current(self, folder: int | None, target: ResolvedPath
                 ) -> tuple[TextFile | None, int | None]:
        """The file's text and permission bits now (None, None: there is no file)."""
        try:
            if folder is None:
                fd = os.open(target.abs, fdwalk.READ_FLAGS)
            else:
                fd = os.open(target.name, fdwalk.READ_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            raise os_error(exc, target.display) from None
        try:
            mode = stat.S_IMODE(os.fstat(fd).st_mode)
        except OSError as exc:
            os.close(fd)
            raise os_error(exc, target.display) from None
        return load_fd(fd, target.display, max_bytes=MAX_EDIT_BYTES), mode

    @staticmethod
    def _replace(folder: int | None, target: ResolvedPath, current: TextFile | None,
                 mode: int, new_text: str | None) -> None:
        if new_text is None:
            if folder is None:
                os.remove(target.abs)
            else:
                os.unlink(target.name, dir_fd=folder)
            return
        data = encode(new_text, current.encoding if current else "utf-8")
        if folder is None:
            atomic_write(target.abs, data, mode)
        else:
            fdwalk.write_in(folder, target.name, data, mode)


def atomic_write(path: Path, data: bytes, mode: int) -> None:
    """Temp file in the same folder, fsync, chmod, rename over ``path`` (by path: for
    platforms without descriptor-relative calls)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=fdwalk.TEMP_SUFFIX,
                                dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise
    if sys.platform != "win32":
        try:  # make the rename itself durable
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError:
            pass
