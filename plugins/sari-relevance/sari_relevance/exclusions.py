"""Excluded paths: folders at any depth (``vendor/``) or globs (``*.min.js``)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence


def excluded_by(path: str, patterns: Sequence[str]) -> str | None:
    """The first pattern ``path`` (workspace-relative, forward slashes) falls under, or None."""
    wrapped = f"/{path.strip('/')}/"
    for pattern in patterns:
        clean = pattern.replace("\\", "/").strip()
        if not clean:
            continue
        if clean.endswith("/"):
            if f"/{clean.strip('/')}/" in wrapped:
                return pattern
        elif fnmatch.fnmatchcase(path, clean):
            return pattern
    return None
