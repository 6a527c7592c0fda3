"""The built-in Python servers (ruff, basedpyright), and the interpreter basedpyright is given."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sari_lspgate.settings import LanguageServerConfig, LspGateSettings


def builtin_servers(settings: LspGateSettings) -> list[LanguageServerConfig]:
    """ruff and basedpyright (unless turned off), then the configured servers."""
    servers = []
    if settings.ruff:
        servers.append(LanguageServerConfig(name="ruff", command=["ruff", "server"],
                                            patterns=settings.python_patterns,
                                            language_id="python"))
    if settings.basedpyright:
        servers.append(LanguageServerConfig(
            name="basedpyright", command=["basedpyright-langserver", "--stdio"],
            patterns=settings.python_patterns, language_id="python"))
    return servers + [server for server in settings.language_servers if server.enabled]


def basedpyright_settings(settings: LspGateSettings, root: Path) -> dict[str, Any] | None:
    """The ``python`` configuration section basedpyright is given for ``root``.

    basedpyright runs an interpreter to learn the search paths: ``python.pythonPath`` if
    the client names one, else the workspace's ``.venv/bin/python`` if it exists. The
    agent can write that file, so the interpreter is named here — the operator's
    ``python``, else the one Sari runs on — unless the operator let the workspace choose.
    With Sari's own interpreter, the packages of the workspace's ``.venv`` are still
    found: its site-packages folders are given as extra paths, which are read, not run.
    """
    if settings.python is None and settings.workspace_venv:
        return None
    python: dict[str, Any] = {"pythonPath": settings.python or sys.executable}
    if settings.python is None:
        extra = workspace_site_packages(root)
        if extra:
            python["analysis"] = {"extraPaths": extra}
    return {"python": python}


def workspace_site_packages(root: Path) -> list[str]:
    """The site-packages folders of the workspace's ``.venv`` that lie inside it."""
    found = [*root.glob(".venv/lib/python*/site-packages"), root / ".venv" / "Lib" / "site-packages"]
    inside = []
    for folder in found:
        try:
            resolved = folder.resolve()
        except OSError:
            continue
        if folder.is_dir() and root.resolve() in resolved.parents:
            inside.append(str(resolved))
    return sorted(inside)
