"""Workspace roots and path safety: every path is canonicalised and kept inside a root.

A client names files relative to a root (``src/app.py``), or absolutely. Whatever
it sends, :meth:`PathGuard.resolve` returns the canonical path inside one root, or
raises a :class:`~sari_core.errors.SariError` before a single byte is opened:
``..`` escapes, absolute paths elsewhere and symlinks that resolve outside are
``PATH_OUTSIDE_WORKSPACE``; NUL bytes are ``INVALID_ARGS``; a missing file is
``NOT_FOUND``; a directory, FIFO, socket or device is ``NOT_A_FILE``.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sari_core.engine.files import fdwalk
from sari_core.errors import ErrorCode, SariError
from sari_core.models import NextCall
from sari_core.targets import root_prefixes

# Version-control metadata is never a target of a mutation, at any depth: a config,
# hook or repository written there makes the next git command run code.
PROTECTED_DIRS = frozenset({".git", ".hg", ".svn"})
# Characters HFS+ ignores in names, so ".g\u200cit" names the ".git" folder there.
_IGNORABLE = dict.fromkeys([*range(0x200C, 0x2010), *range(0x202A, 0x202F),
                            *range(0x206A, 0x2070), 0xFEFF])
# NTFS short names of the same folders.
_SHORT_NAMES = frozenset({"git~1", "hg~1", "svn~1"})


def is_protected_name(name: str) -> bool:
    """Whether a path component names version-control metadata on some filesystem:
    any letter case, trailing dots or spaces (NTFS), ignorable characters (HFS+)."""
    folded = name.translate(_IGNORABLE).rstrip(". ").casefold()
    return folded in PROTECTED_DIRS or folded in _SHORT_NAMES


def protected_component(rel: str) -> str | None:
    """The first component of ``rel`` that names version-control metadata, or None."""
    return next((part for part in rel.split("/") if is_protected_name(part)), None)


@dataclass(frozen=True)
class ResolvedPath:
    """A path proven to lie inside root number ``root_index``."""

    root_index: int
    root: Path
    rel: str  # forward slashes, relative to the root ("" for the root itself)
    abs: Path  # canonical (symlinks resolved)
    display: str  # how responses name it

    @property
    def name(self) -> str:
        return posixpath.basename(self.rel)


def canonical(path: str | os.PathLike[str]) -> Path:
    """expanduser + realpath: the one form roots are compared in."""
    try:
        return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))
    except OSError:  # a symlink on the way changed while it was read: the path as given
        return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(device, inode) of the folder ``path`` reaches now; None when it is gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` with forward slashes; "" for the root itself."""
    return "" if path == root else path.relative_to(root).as_posix()


def os_error(exc: OSError, display: str) -> SariError:
    """The structured error for a failed open of ``display`` (never the server's path)."""
    code = exc.errno
    if code == errno.ENOENT:
        return SariError(ErrorCode.NOT_FOUND, f"{display!r} does not exist in the workspace.",
                         "Search for it by name (kind='path') to find the right path.",
                         _search_hint(display))
    if code == errno.ELOOP:
        return SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                         f"{display!r} goes through a symlink that appeared after the path "
                         "was checked; nothing was opened.",
                         "The workspace changed during the call: check the path and retry.")
    if code == errno.ENOTDIR:
        return SariError(ErrorCode.NOT_A_FILE, f"a component of {display!r} is not a folder.",
                         "Choose a path whose parents are folders.")
    if code == errno.ENAMETOOLONG:
        return SariError(ErrorCode.INVALID_ARGS, f"{display[:80]!r}... is longer than the "
                         "filesystem allows (a name over 255 bytes, or a path over 4096).",
                         "Use a shorter path.")
    if code == errno.EISDIR:
        return SariError(ErrorCode.NOT_A_FILE, f"{display!r} is a directory, not a file.",
                         "Name a file inside the workspace.")
    return SariError(ErrorCode.NOT_FOUND, f"{display!r} cannot be opened: "
                     f"{exc.strerror or 'error ' + str(code)}.",
                     "Check the path and its permissions.")


def _search_hint(target: str) -> list[NextCall]:
    name = posixpath.basename(target.replace("\\", "/")) or target
    return [NextCall(tool="search", arguments={"query": name, "kind": "path"})]


class PathGuard:
    """The workspace roots, and the only way to turn a client's path into a file path."""

    def __init__(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        canon: list[Path] = []
        for root in roots:
            path = canonical(root)
            if not path.is_dir():
                raise SariError(ErrorCode.NOT_FOUND, f"workspace root {os.fspath(root)!r} is not "
                                "a directory.", "Pass an existing folder as the workspace.")
            if path not in canon:
                canon.append(path)
        if not canon:
            raise SariError(ErrorCode.INVALID_ARGS, "a workspace needs at least one root.",
                            "Pass the folder to serve.")
        self.roots = canon
        # With several roots, responses prefix paths with the root's folder name.
        self._prefixes = root_prefixes(canon)
        # Each root's canonical spelling and identity, so resolving a path inside it walks only
        # the components below the root (see _canonical_below).
        self._root_texts = [os.fspath(root) for root in canon]
        self._root_ids = [_identity(root) for root in canon]
        # Every file is opened below these descriptors (see fdwalk), so a root replaced or
        # a folder swapped for a symlink later cannot redirect an open outside.
        self._root_fds: list[int] | None = None
        self._fds_lock = threading.Lock()

    # --- descriptors ----------------------------------------------------------------

    def _root_fd(self, root_index: int) -> int:
        with self._fds_lock:
            if self._root_fds is None:
                self._root_fds = [fdwalk.open_root(text) for text in self._root_texts]
            return self._root_fds[root_index]

    def close(self) -> None:
        """Close the roots' descriptors (opened again if the guard is used after)."""
        with self._fds_lock:
            fds, self._root_fds = self._root_fds or [], None
        for fd in fds:
            os.close(fd)

    def open_file(self, root_index: int, rel: str, display: str) -> int:
        """A read-only descriptor of file ``rel`` (canonical) of a root, no component
        followed if it is a symlink now; errors are SariErrors naming ``display`` only."""
        if not rel:
            raise SariError(ErrorCode.NOT_A_FILE, f"{display!r} is a directory, not a file.",
                            "Name a file inside the workspace.")
        try:
            if not fdwalk.supported():
                return os.open(self.roots[root_index] / rel, fdwalk.READ_FLAGS)
            return fdwalk.open_file(self._root_fd(root_index), rel)
        except OSError as exc:
            raise os_error(exc, display) from None

    @contextmanager
    def folder_of(self, target: ResolvedPath, *, create: bool = False) -> Iterator[int | None]:
        """The held descriptor of ``target``'s folder (made when ``create``); None where
        the platform cannot open relative to descriptors (paths are used there)."""
        folders, _ = fdwalk.split(target.rel)
        if not fdwalk.supported():
            if create:
                target.abs.parent.mkdir(parents=True, exist_ok=True)
            yield None
            return
        try:
            fd = fdwalk.open_dir(self._root_fd(target.root_index), folders, create=create)
        except OSError as exc:
            raise os_error(exc, target.display) from None
        try:
            yield fd
        finally:
            os.close(fd)

    # --- naming ---------------------------------------------------------------------

    def display(self, root_index: int, rel: str) -> str:
        if self._prefixes is None:
            return rel or "."
        return f"{self._prefixes[root_index]}/{rel}" if rel else self._prefixes[root_index]

    def resolved(self, root_index: int, rel: str) -> ResolvedPath:
        """The ResolvedPath of an indexed file (already known to be inside its root)."""
        root = self.roots[root_index]
        return ResolvedPath(root_index, root, rel, root / rel if rel else root,
                            self.display(root_index, rel))

    def locate(self, abs_path: str | os.PathLike[str]) -> ResolvedPath | None:
        """Which root holds an (already canonical) absolute path; None when none does."""
        path = Path(abs_path)
        for index, root in enumerate(self.roots):
            if _inside(path, root):
                return self.resolved(index, relative(path, root))
        return None

    # --- resolution -----------------------------------------------------------------

    def resolve(self, target: str, *, kind: str = "file", must_exist: bool = True,
                for_write: bool = False) -> ResolvedPath:
        """Canonicalise ``target`` and prove it lies inside a root.

        :param kind: ``file`` (a regular file), ``any`` (file or directory).
        :param must_exist: refuse with NOT_FOUND when nothing is there (writes pass False).
        :param for_write: also refuse VCS metadata folders.
        """
        if not isinstance(target, str) or not target.strip():
            raise SariError(ErrorCode.INVALID_ARGS, "path is empty.", "Give a path inside the "
                            "workspace, e.g. 'src/app.py'.")
        if "\x00" in target:
            raise SariError(ErrorCode.INVALID_ARGS, "path contains a NUL byte and was refused.",
                            "Send the path as plain text, without control characters.")
        try:
            os.fsencode(target)
        except UnicodeError:
            raise SariError(ErrorCode.INVALID_ARGS, "path contains a character no file name "
                            "can hold (a lone surrogate) and was refused.",
                            "Send the path as valid Unicode text.") from None
        root_index, lexical = self._lexical(target)
        if for_write:
            self._refuse_protected(target, lexical)
        root = self.roots[root_index]
        try:  # realpath itself raises when a symlink vanishes while it reads it
            real, info = self._canonical_below(root_index, lexical)
        except OSError as exc:
            raise os_error(exc, target) from None
        root_text = self._root_texts[root_index]
        base = root_text if root_text.endswith(os.sep) else root_text + os.sep
        if real == root_text:
            rel = ""
        elif real.startswith(base):
            rel = real[len(base):].replace(os.sep, "/")
        else:
            raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                            f"{target!r} resolves outside the workspace (through a symlink) and "
                            "was refused.", "Only files inside the workspace roots can be used.")
        resolved = ResolvedPath(root_index, root, rel, Path(real), self.display(root_index, rel))
        if for_write:
            self._refuse_protected(target, resolved.rel)
        if must_exist:
            self._check_kind(target, resolved, kind, info)
        return resolved

    @staticmethod
    def _refuse_protected(target: str, rel: str) -> None:
        """PROTECTED_PATH when ``rel`` (as asked, and again as resolved) goes through
        version-control metadata."""
        component = protected_component(rel)
        if component is not None:
            raise SariError(ErrorCode.PROTECTED_PATH,
                            f"{target!r} goes through {component!r}, version-control "
                            "metadata, and cannot be written or edited.",
                            "Edit the project's files, not a repository's internals; "
                            "run git yourself to change its configuration.")

    def _canonical_below(self, root_index: int, lexical: str) -> tuple[str, os.stat_result | None]:
        """``os.path.realpath(root/lexical)``, walking only the components below the root.

        The root is canonical already, so the walk starts there with one ``lstat`` per
        component of ``lexical``; the first symlink or error hands the whole path to
        ``realpath`` (the same answer, reached the slow way). When the root itself is no
        longer the folder it was (replaced, or reached through a changed parent), every
        component is resolved again from ``/``. The second value is the final
        component's ``lstat`` when it is not a symlink (its ``stat``, too), else None.
        """
        root_text = self._root_texts[root_index]
        whole = os.path.join(root_text, lexical) if lexical else root_text
        if _identity(root_text) != self._root_ids[root_index]:
            return os.path.realpath(whole), None
        path = root_text
        info: os.stat_result | None = None
        for part in lexical.split("/") if lexical else ():
            path = os.path.join(path, part)
            try:
                info = os.lstat(path)
            except OSError:
                return os.path.realpath(whole), None
            if stat.S_ISLNK(info.st_mode):
                return os.path.realpath(whole), None
        return path, info

    def _lexical(self, target: str) -> tuple[int, str]:
        """Pick the root and the normalised relative path, refusing ``..`` escapes."""
        text = target.replace("\\", "/") if os.sep == "\\" else target
        if os.path.isabs(text):
            absolute = Path(os.path.normpath(os.path.expanduser(text)))
            for index, root in enumerate(self.roots):
                if _inside(absolute, root):
                    return index, relative(absolute, root)
            # An absolute path spelled through a symlinked parent (e.g. /tmp -> /private/tmp).
            real = canonical(absolute)
            for index, root in enumerate(self.roots):
                if _inside(real, root):
                    return index, relative(real, root)
            raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                            f"{target!r} is outside the workspace and was refused.",
                            "Use a path relative to the workspace root: "
                            + ", ".join(str(root) for root in self.roots) + ".")
        normal = posixpath.normpath(text)
        if normal == ".." or normal.startswith("../"):
            raise SariError(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                            f"{target!r} climbs out of the workspace with '..' and was refused.",
                            "Use a path inside the workspace, relative to its root.")
        normal = "" if normal == "." else normal
        if self._prefixes is not None:
            head, _, rest = normal.partition("/")
            named = self._prefixes.index(head) if head in self._prefixes else None
            if named is not None and os.path.lexists(self.roots[named] / rest):
                return named, rest
            # Unprefixed, as a client names a file of the project it runs in (its first
            # root), also when the path's first folder happens to share a root's name.
            for index, root in enumerate(self.roots):
                if os.path.lexists(root / normal):
                    return index, normal
            if named is not None:
                return named, rest
        return 0, normal

    def _check_kind(self, target: str, resolved: ResolvedPath, kind: str,
                    known: os.stat_result | None = None) -> None:
        try:
            info = known if known is not None else os.stat(resolved.abs)
        except OSError as exc:
            raise os_error(exc, target) from None
        if stat.S_ISREG(info.st_mode):
            return
        if stat.S_ISDIR(info.st_mode):
            if kind == "any":
                return
            raise SariError(ErrorCode.NOT_A_FILE, f"{target!r} is a directory, not a file.",
                            "Search with kind='path' and a path_glob to list its files.",
                            [NextCall(tool="search", arguments={
                                "query": resolved.name or target, "kind": "path"})])
        what = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a socket"
                if stat.S_ISSOCK(info.st_mode) else "a device file")
        raise SariError(ErrorCode.NOT_A_FILE, f"{target!r} is {what}, not a regular file, and "
                        "was not opened.", "Only regular files can be read or written.")
