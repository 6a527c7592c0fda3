"""Server logging: stderr and a rotating file in the state folder; never stdout.

On stdio, stdout *is* the protocol: one stray line breaks the client. Records go
to stderr (which clients such as Claude Code keep in their MCP logs) and to
``<state>/logs/server.log``. ``SARI_LOG_LEVEL`` sets both levels; unset, stderr
shows warnings and the file keeps INFO.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import IO

from sari_core.locations import log_dir, private_dir, private_opener

LOG_FILE_NAME = "server.log"
FORMAT = "%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s"
_MAX_BYTES = 5 * 1024 * 1024
_BACKUPS = 3
_OWNED = "_sari_server_handler"


LEVELS = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARNING": logging.WARNING,
          "WARN": logging.WARNING, "ERROR": logging.ERROR, "CRITICAL": logging.CRITICAL}


def _level(raw: str | None, default: int) -> int:
    """A level name (``DEBUG``...) or number; anything else keeps the default."""
    if not raw:
        return default
    text = raw.strip().upper()
    if text.isdigit():
        return int(text)
    return LEVELS.get(text, default)


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Log files (the current one and each rotated one) are 0600: a log names the user's
    files and quotes their errors."""

    def _open(self) -> IO[str]:  # pyright: ignore[reportIncompatibleMethodOverride] - a text file, as the base opens
        return open(self.baseFilename, self.mode, encoding=self.encoding,  # noqa: SIM115
                    errors=self.errors, opener=private_opener)


def configure_logging() -> Path | None:
    """Route every log record to stderr and to the server log file; return the file's path.

    Replaces the handlers the CLI installed on the root logger, so nothing can write
    to stdout. A log folder that cannot be created costs the file, not the server.
    """
    explicit = os.environ.get("SARI_LOG_LEVEL")
    stderr_level = _level(explicit, logging.WARNING)
    file_level = _level(explicit, logging.INFO)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    formatter = logging.Formatter(FORMAT)
    stderr_handler = logging.StreamHandler(sys.stderr)
    stderr_handler.setLevel(stderr_level)
    stderr_handler.setFormatter(formatter)
    setattr(stderr_handler, _OWNED, True)
    root.addHandler(stderr_handler)
    path: Path | None = log_dir() / LOG_FILE_NAME
    assert path is not None
    try:
        private_dir(path.parent)
        file_handler = _PrivateRotatingFileHandler(
            path, maxBytes=_MAX_BYTES, backupCount=_BACKUPS, encoding="utf-8")
    except OSError as exc:
        root.warning("server log file %s unavailable: %s", path, exc)
        path = None
    else:
        file_handler.setLevel(file_level)
        file_handler.setFormatter(formatter)
        setattr(file_handler, _OWNED, True)
        root.addHandler(file_handler)
    root.setLevel(min(stderr_level, file_level))
    return path
