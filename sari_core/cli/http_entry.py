"""A client's entry for a running ``sari serve --transport http``: its URL and bearer token.

Claude Code (``"type": "http"``) and Cursor take a URL and request headers in their MCP
configuration; the token goes into the ``Authorization`` header. The config file then
holds a secret: keep it out of version control (or pass the token another way).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from sari_core.cli.config_files import ConfigFileError
from sari_core.server.http_token import TOKEN_ENV, TokenError, checked, stored_token

HTTP_CLIENTS = ("claude-code", "cursor")


def http_entry(client: str, url: str, token: str | None) -> dict[str, Any]:
    """The client's entry for the server at ``url`` (without the server name)."""
    if client not in HTTP_CLIENTS:
        raise ConfigFileError(f"--url is for {' and '.join(HTTP_CLIENTS)}; {client} starts "
                              "Sari itself over stdio (leave --url out).")
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise ConfigFileError(f"--url {url!r} is not an http(s) URL such as "
                              "http://127.0.0.1:8765/mcp.")
    entry: dict[str, Any] = {"type": "http", "url": url} if client == "claude-code" \
        else {"url": url}
    if token:
        entry["headers"] = {"Authorization": f"Bearer {token}"}
    return entry


def install_token(given: str | None) -> str | None:
    """``--token``, else ``SARI_HTTP_TOKEN``, else the token ``sari serve`` stored, else None."""
    try:
        if given is not None or os.environ.get(TOKEN_ENV):
            return checked(given if given is not None else os.environ[TOKEN_ENV],
                           f"--token or {TOKEN_ENV}")
        return stored_token()
    except TokenError as exc:
        raise ConfigFileError(str(exc)) from None
