"""Paths kept out of the index and out of search: the ``exclude`` setting.

``exclude`` is a list of ``.gitignore`` lines (``"data/**"``, ``"*.min.js"``) that apply at
every root, on top of the default exclusions and the ``.gitignore`` files. It is read, each
later source adding to the earlier ones, from:

1. the user's config file (``config.toml`` in the user's config folder, or the file
   ``SARI_CONFIG_FILE`` names): a top-level ``exclude``;
2. the workspace: ``[tool.sari] exclude`` in ``pyproject.toml``, then a top-level
   ``exclude`` in ``sari.toml``;
3. the environment: ``SARI_EXCLUDE``, a JSON list or comma-separated lines.

Rules only narrow what Sari sees, so the workspace may set them as freely as the user.
A workspace value that is not a list of strings is logged and left out (the agent can
write those files; a broken one must not stop the server); the user's or the
environment's stops it, naming the source.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from sari_core.locations import config_file

log = logging.getLogger(__name__)

ENV = "SARI_EXCLUDE"


class ExcludeError(ValueError):
    """An ``exclude`` value is not a list of strings; the message names its source."""


@dataclass(frozen=True)
class ExcludeRule:
    """One ``.gitignore`` line and where it was set."""

    pattern: str
    source: str


def _toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # a missing or broken file sets no rule (settings report a broken file)


def _patterns(value: object, source: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ExcludeError(f"exclude (from {source}) must be a list of strings, "
                           f"e.g. [\"data/**\", \"*.min.js\"], not {value!r}")
    return [item.strip() for item in value if item.strip()]


def _from_env(raw: str) -> object:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return [part for part in raw.split(",")]


def exclude_rules(workspace: Path | None,
                  environ: Mapping[str, str] | None = None) -> list[ExcludeRule]:
    """Every configured rule for ``workspace``, each once, in source order."""
    environ = os.environ if environ is None else environ
    sources: list[tuple[str, object, bool]] = []  # (source, value, from the workspace)
    user = config_file(environ)
    sources.append((str(user), _toml(user).get("exclude"), False))
    if workspace is not None:
        tool = _toml(workspace / "pyproject.toml").get("tool", {})
        pyproject = tool.get("sari", {}) if isinstance(tool, Mapping) else {}
        if isinstance(pyproject, Mapping):
            sources.append(("pyproject.toml [tool.sari]", pyproject.get("exclude"), True))
        sources.append(("sari.toml", _toml(workspace / "sari.toml").get("exclude"), True))
    if environ.get(ENV):
        sources.append((ENV, _from_env(environ[ENV]), False))
    rules: list[ExcludeRule] = []
    seen: set[str] = set()
    for source, value, from_workspace in sources:
        try:
            patterns = _patterns(value, source)
        except ExcludeError as exc:
            if not from_workspace:
                raise
            log.warning("exclude ignored: %s", exc)
            continue
        for pattern in patterns:
            if pattern not in seen:
                seen.add(pattern)
                rules.append(ExcludeRule(pattern, source))
    return rules


def configured_excludes(workspace: Path | None,
                        environ: Mapping[str, str] | None = None) -> list[str]:
    """The ``.gitignore`` lines to hand the engine (``Workspace(..., exclude=...)``)."""
    return [rule.pattern for rule in exclude_rules(workspace, environ)]


def excluded_counts(rules: Iterable[ExcludeRule], paths: Iterable[str]) -> dict[str, int]:
    """How many of ``paths`` (workspace-relative, as the walk without the rules lists them)
    each rule keeps out."""
    import pathspec

    specs = [(rule.pattern, pathspec.GitIgnoreSpec.from_lines([rule.pattern]))
             for rule in rules]
    counts = {pattern: 0 for pattern, _ in specs}
    for path in paths:
        for pattern, spec in specs:
            if spec.match_file(path):
                counts[pattern] += 1
    return counts
