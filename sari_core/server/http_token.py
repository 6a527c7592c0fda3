"""The bearer token of an HTTP server: given, or generated once and kept in the state folder.

The stored token is a file readable by its owner only (0600, in a 0700 folder), so
``sari install`` on the same account can copy it into a client's configuration.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from sari_core.locations import private_dir, state_dir

TOKEN_ENV = "SARI_HTTP_TOKEN"
TOKEN_FILENAME = "http-token"
MIN_TOKEN_CHARS = 16


class TokenError(Exception):
    """The token cannot be used or stored; the server must not start."""


@dataclass(frozen=True)
class ServerToken:
    """The token a server requires, and whether it was just generated (to print it once)."""

    value: str
    generated: bool = False
    stored_at: Path | None = None


def token_file() -> Path:
    return state_dir() / TOKEN_FILENAME


def checked(value: str, source: str) -> str:
    token = value.strip()
    if len(token) < MIN_TOKEN_CHARS or any(ch.isspace() for ch in token):
        raise TokenError(f"the token from {source} must be at least {MIN_TOKEN_CHARS} "
                         "characters without spaces")
    return token


def stored_token() -> str | None:
    """The token kept in the state folder, if there is a usable one."""
    path = token_file()
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise TokenError(f"cannot read {path}: {exc.strerror}") from None
    return checked(text, str(path))


def _store(token: str) -> Path:
    path = token_file()
    private_dir(path.parent)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    os.replace(partial, path)
    return path


def server_token(given: str | None, *, required: bool) -> ServerToken | None:
    """The token to require: ``given`` (option or ``SARI_HTTP_TOKEN``) wins; a server that
    must have one and was given none reuses the stored token or generates and stores one.

    :raises TokenError: a given token is too short, or none can be stored.
    """
    if given is None:
        given = os.environ.get(TOKEN_ENV) or None
    if given is not None:
        return ServerToken(checked(given, f"--token or {TOKEN_ENV}"))
    if not required:
        return None
    existing = stored_token()
    if existing is not None:
        return ServerToken(existing, stored_at=token_file())
    token = secrets.token_urlsafe(32)
    try:
        path = _store(token)
    except OSError as exc:
        raise TokenError(f"cannot store a generated token in {token_file()}: "
                         f"{exc.strerror or exc}") from None
    return ServerToken(token, generated=True, stored_at=path)
