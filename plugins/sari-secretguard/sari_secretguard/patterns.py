"""Which files are secret (globs), and cutting a redacted text without exposing a secret.

The secret patterns themselves live in ``sari_core`` (``SECRET_PATTERNS``,
``redact_secrets``), shared with every plugin that keeps secrets out of what it stores.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import translate
from functools import lru_cache


def cut(text: str, length: int) -> str:
    """``text`` cut to ``length`` characters, never inside a redaction marker.

    Redaction runs on the whole text first, so a cap that would end inside a secret
    ends after its marker instead of leaving the secret's first characters.
    """
    if len(text) <= length:
        return text
    start = text.rfind("[REDACTED:", 0, length)
    end = text.find("]", start) if start != -1 else -1
    return text[:end + 1] if end >= length else text[:length]


@lru_cache(maxsize=64)
def _glob_regexes(globs: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """Two expressions, together matching a path whose whole, or any part after a ``/``,
    matches a glob (a search checks thousands of paths: one match each instead of one per
    glob and part).

    A glob starting with ``*`` matches some part of a path exactly when it matches the
    whole path (its ``*`` takes any text before the part, slashes included), so those are
    tried once, on the whole path; only the others are tried after every ``/``. Trying a
    ``*`` glob after every ``/`` of a path made of thousands of parts scanned the rest of
    the path at each one: time growing with the square of the path's length.
    """
    whole = [glob for glob in globs if glob.startswith("*")]
    parts = [glob for glob in globs if not glob.startswith("*")]
    return _alternatives(whole, "^"), _alternatives(parts, "(?:^|/)")


def _alternatives(globs: list[str], anchor: str) -> re.Pattern[str] | None:
    if not globs:
        return None
    alternatives = "|".join(f"(?:{translate(glob.lower())})" for glob in globs)
    return re.compile(f"{anchor}(?:{alternatives})")


def matches_glob(path: str, globs: Iterable[str]) -> bool:
    """Whether a workspace path, or any trailing part of it, matches one of ``globs``."""
    whole, parts = _glob_regexes(tuple(globs))
    if whole is None and parts is None:
        return False
    normalized = re.sub(r"/+", "/", path.replace("\\", "/").lower())
    while normalized.startswith("./"):
        normalized = normalized[2:]
    normalized = normalized.strip("/")
    return any(regex is not None and regex.search(normalized) is not None
               for regex in (whole, parts))
