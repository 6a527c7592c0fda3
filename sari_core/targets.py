"""Read targets and search results in one comparable form, for policies that compare them.

A policy that checks "was this read's target among the last search's results?" sees
the same file spelled many ways: ``./pkg\\mod.py``, ``pkg//mod.py``, the absolute
``/ws/pkg/mod.py``, or ``api/pkg/mod.py`` when the workspace has several roots.
:func:`normalize_path` turns each into the name responses use for the file, so the
comparison is a plain string equality; :func:`symbol_names` and :func:`words` do the
same for symbol targets and for the words of a query or a snippet.

These functions only compare names. They never touch the disk and decide nothing
about access: what may be read is the engine's decision
(:class:`sari_core.engine.files.paths.PathGuard`), and a name that is not in any root
comes back normalised but otherwise unchanged.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence, Set
from pathlib import Path

__all__ = ["names_symbol", "normalize_path", "root_prefixes", "symbol_names", "words"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def root_prefixes(roots: Sequence[Path]) -> list[str] | None:
    """The folder name each root's files are prefixed with in responses, or None for one root.

    The engine's naming rule: with several roots a file is ``<root folder>/<path>``
    (roots ``/w/api`` and ``/w/web`` give ``api`` and ``web``); when two roots share a
    folder name, every root is ``<folder>~<root index>`` instead (``/a/app`` and
    ``/b/app`` give ``app~0`` and ``app~1``).
    """
    if len(roots) < 2:
        return None
    names = [root.name or str(root) for root in roots]
    if len(set(names)) == len(names):
        return names
    return [f"{name}~{index}" for index, name in enumerate(names)]


def normalize_path(path: str, roots: Sequence[Path] = ()) -> str:
    """``./pkg\\mod.py``, ``pkg//mod.py`` and ``/abs/root/pkg/mod.py`` all become ``pkg/mod.py``.

    Backslashes become slashes and ``.``/``..`` segments are folded. An absolute path
    under one of ``roots`` (spelled from the root as given or from its real path) becomes the name
    responses use for it, prefixed as :func:`root_prefixes` says when there are several
    roots. Any other absolute path is only normalised. ``"."`` and ``""`` become ``""``.

    :param path: a read's target or a path a search returned.
    :param roots: the workspace roots (``session.roots``), in the engine's order.
    """
    text = path.strip().replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        prefixes = root_prefixes(roots)
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
    """A symbol and its last part: ``Config.load`` (or ``Config::load``) also names ``load``.

    Empty (or blank) names nothing.
    """
    name = symbol.strip()
    if not name:
        return set()
    return {name, name.replace("::", ".").rsplit(".", 1)[-1]}


def words(text: str) -> set[str]:
    """The identifier-like words of a query or a snippet (``load_config(path)`` has two)."""
    return set(_WORD.findall(text))


def names_symbol(wanted: Set[str], symbol: str | None, snippet_words: Set[str]) -> bool:
    """Whether a search match is about any of the names ``wanted`` (from :func:`symbol_names`):
    its matched ``symbol`` names one, or its snippet (``snippet_words``, from :func:`words`)
    contains one."""
    if symbol and wanted & symbol_names(symbol):
        return True
    return bool(wanted & snippet_words)
