"""Read targets and match paths in one comparable form: workspace-relative, forward slashes."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _root_prefixes(roots: Sequence[Path]) -> list[str] | None:
    """How responses name files of several roots: ``<root folder>/<path>`` (the engine's rule)."""
    if len(roots) < 2:
        return None
    names = [root.name or str(root) for root in roots]
    if len(set(names)) == len(names):
        return names
    return [f"{name}~{index}" for index, name in enumerate(names)]


def normalize_path(path: str, roots: Sequence[Path] = ()) -> str:
    """``./pkg\\mod.py``, ``pkg//mod.py`` and ``/abs/root/pkg/mod.py`` all become ``pkg/mod.py``.

    Only used to compare a read's target with paths a search returned; the engine
    itself decides what may be read. An absolute path inside a root becomes the
    name responses use for it (prefixed with the root's folder when there are several).
    """
    text = path.strip().replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        prefixes = _root_prefixes(roots)
        for index, root in enumerate(roots):
            spellings = {os.path.realpath(os.fspath(root)), os.fspath(root)}
            for spelling in sorted(spellings):
                base = spelling.replace("\\", "/").rstrip("/") + "/"
                if text.startswith(base):
                    text = text[len(base):]
                    if prefixes is not None:
                        text = f"{prefixes[index]}/{text}"
                    break
            else:
                continue
            break
    normalized = posixpath.normpath(text) if text else ""
    return "" if normalized == "." else normalized


def symbol_names(symbol: str) -> set[str]:
    """A symbol and its last part: ``Config.load`` (or ``Config::load``) also names ``load``."""
    name = symbol.strip()
    if not name:
        return set()
    return {name, name.replace("::", ".").rsplit(".", 1)[-1]}


def words(text: str) -> set[str]:
    """Identifier-like words of a query or a snippet."""
    return set(_WORD.findall(text))
