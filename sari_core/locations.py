"""Where Sari keeps its files: never in the workspace, always in the user's folders.

``SARI_STATE_DIR`` and ``SARI_CACHE_DIR`` override the platform defaults (tests
and CI point them at temporary folders); ``SARI_CONFIG_FILE`` names the operator's
config file instead of ``config.toml`` in the user's config folder.

What Sari keeps there (the index holds the full text of the workspace, secrets
included; the execution log holds every call's arguments) is the user's alone:
folders Sari makes there are 0700 and files 0600, whatever the umask, and a
folder or file left looser by an older version is tightened when it is opened.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import platformdirs

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def state_dir() -> Path:
    override = os.environ.get("SARI_STATE_DIR")
    return Path(override) if override else Path(platformdirs.user_state_dir("sari"))


def cache_dir() -> Path:
    override = os.environ.get("SARI_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir("sari"))


def config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The operator's own settings file (``SARI_CONFIG_FILE``, else ``config.toml`` in the
    platform's user config folder): the side of the configuration the agent cannot write."""
    override = (os.environ if environ is None else environ).get("SARI_CONFIG_FILE")
    return Path(override) if override else Path(platformdirs.user_config_dir("sari")) / "config.toml"


def log_dir() -> Path:
    return state_dir() / "logs"


def _sari_base(path: Path) -> Path | None:
    """The state or cache folder that holds ``path`` (or is it), if one does."""
    for base in (state_dir(), cache_dir()):
        if path == base or base in path.parents:
            return base
    return None


def _tighten(path: Path, mode: int) -> None:
    """Drop group and other permissions from a folder or file this user owns."""
    with contextlib.suppress(OSError):
        info = os.stat(path)
        if (info.st_mode & 0o077) and (not hasattr(os, "getuid")
                                       or info.st_uid == os.getuid()):
            os.chmod(path, mode)


def private_dir(path: Path) -> Path:
    """Create folder ``path`` (and its parents); the folders from Sari's state or cache
    folder down to it are 0700. Every folder Sari creates is 0700, whatever the umask —
    the parents too (``~/.cache``, ``~/.local/state``), as the XDG base directory rules
    ask; an existing folder above Sari's own is left as it is."""
    base = _sari_base(path)
    chain = [path, *path.parents]
    owned = chain[:chain.index(base) + 1] if base is not None else [path]
    for folder in reversed(chain):
        if folder.is_dir():
            if folder in owned:
                _tighten(folder, PRIVATE_DIR_MODE)
            continue
        try:
            folder.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:  # made meanwhile by another process
            if folder in owned:
                _tighten(folder, PRIVATE_DIR_MODE)  # it may be looser
            continue
        _tighten(folder, PRIVATE_DIR_MODE)  # the umask only takes bits away; this makes sure
    return path


def private_file(path: Path) -> Path:
    """Make sure ``path`` exists as a 0600 file in a private folder (SQLite then gives its
    ``-wal`` and ``-shm`` files the same mode)."""
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    os.close(os.open(path, flags, PRIVATE_FILE_MODE))
    for suffix in ("", "-wal", "-shm", "-journal"):
        _tighten(Path(f"{path}{suffix}"), PRIVATE_FILE_MODE)
    return path


def private_opener(path: str, flags: int) -> int:
    """An ``opener`` for :func:`open`: a file it creates is 0600, one it opens is made so."""
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE_MODE)
    with contextlib.suppress(OSError):
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    return fd


def open_private(path: Path, mode: str = "a") -> IO[str]:
    """A text file in a private folder, opened 0600 (``mode``: ``a`` or ``w``)."""
    private_dir(path.parent)
    return open(path, mode, encoding="utf-8", opener=private_opener)  # noqa: SIM115
