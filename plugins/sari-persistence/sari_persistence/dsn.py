"""Database URLs as they may be shown: the password never leaves this module.

``database_url`` is a ``postgresql://user:password@host:port/db?...`` URL or a
libpq ``key=value`` string. :func:`display` is what logs, errors, ``sari log``
and telemetry print; :func:`scrub` removes the password (and the whole URL) from
any text a driver hands back, in case it ever quotes them.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit, urlunsplit

HIDDEN = "***"
_KEYWORD_PASSWORD = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*", re.IGNORECASE)
_SCHEMES = ("postgresql://", "postgres://")
# The password of a URL urlsplit cannot parse: between the user and the @.
_URL_PASSWORD = re.compile(r"://[^:/@]*:([^@]*)@")


def is_postgres_url(url: str) -> bool:
    return url.strip().lower().startswith(_SCHEMES) or "host=" in url or "dbname=" in url


def password_of(url: str) -> str | None:
    if url.lower().startswith(_SCHEMES):
        try:
            parts = urlsplit(url)
        except ValueError:  # malformed: take what sits where a password would
            match = _URL_PASSWORD.search(url)
            return unquote(match.group(1)) if match else None
        if parts.password:
            return unquote(parts.password)
        match = _QUERY_PASSWORD.search(url)
        return unquote(match.group(0).split("=", 1)[1]) if match else None
    match = _KEYWORD_PASSWORD.search(url)
    return match.group(2).strip("'") if match else None


def display(url: str) -> str:
    """``url`` with its password replaced by ``***`` (user, host, port and database kept)."""
    if url.lower().startswith(_SCHEMES):
        try:
            parts = urlsplit(url)
        except ValueError:  # malformed: nothing of it can be told safe to show
            return url.split("://", 1)[0] + "://" + HIDDEN
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.split(':', 1)[0]}:{HIDDEN}@{host}"
        shown = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        return _QUERY_PASSWORD.sub(lambda m: m.group(1) + HIDDEN, shown)
    return _KEYWORD_PASSWORD.sub(lambda m: m.group(1) + HIDDEN, url)


def scrub(text: str, url: str) -> str:
    """``text`` with the URL and its password replaced (a driver message, a traceback line)."""
    text = text.replace(url, display(url))
    secret = password_of(url)
    if secret:
        text = text.replace(secret, HIDDEN)
    return text
