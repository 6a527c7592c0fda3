"""Read targets and search paths in one comparable form: workspace-relative, forward slashes."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def normalize_path(path: str, roots: Sequence[Path] = ()) -> str:
    """``./pkg\\mod.py``, ``pkg//mod.py`` and ``/abs/root/pkg/mod.py`` all become ``pkg/mod.py``.

    Only used to compare a read's target with paths a search returned; the engine
    itself decides what may be read.
    """
    text = path.strip().replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        for root in roots:
            prefix = os.path.realpath(os.fspath(root)).replace("\\", "/").rstrip("/") + "/"
            plain = os.fspath(root).replace("\\", "/").rstrip("/") + "/"
            for candidate in (prefix, plain):
                if text.startswith(candidate):
                    text = text[len(candidate):]
                    break
            else:
                continue
            break
    normalized = posixpath.normpath(text) if text else ""
    return "" if normalized == "." else normalized


def symbol_names(symbol: str) -> set[str]:
    """A symbol and its last dotted part: ``Config.load`` matches ``load`` and ``Config.load``."""
    name = symbol.strip()
    if not name:
        return set()
    return {name, name.rsplit(".", 1)[-1]}


def words(text: str) -> set[str]:
    """Identifier-like words of a query or a snippet."""
    return set(_WORD.findall(text))
