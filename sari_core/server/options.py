"""How the server presents itself: ``text_format``, ``legacy_tools`` and
``structured_content`` of ``[tool.sari]``.

Read from the workspace's ``pyproject.toml`` (``[tool.sari]``) and ``sari.toml`` (top
level), the latter winning, then ``SARI_TEXT_FORMAT`` / ``SARI_LEGACY_TOOLS`` /
``SARI_STRUCTURED_CONTENT``. These are
presentation choices of the server, not policy: the kernel never reads them.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TextFormat = Literal["model", "json"]
TEXT_FORMATS: tuple[TextFormat, ...] = ("model", "json")
StructuredContent = Literal["auto", "always", "never"]
STRUCTURED_CONTENT: tuple[StructuredContent, ...] = ("auto", "always", "never")
# Clients that show the model JSON.stringify(structuredContent) instead of the text block
# whenever a result carries structured content (observed in their public issue trackers).
STRUCTURED_FIRST_CLIENTS = ("claude-code", "codex")
OPTION_KEYS = ("text_format", "legacy_tools", "structured_content")
OPTION_VARIABLES = ("SARI_TEXT_FORMAT", "SARI_LEGACY_TOOLS", "SARI_STRUCTURED_CONTENT")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


log = logging.getLogger(__name__)


class OptionsError(ValueError):
    """A presentation option has a value the server cannot use; the message names it."""


@dataclass(frozen=True)
class ServerOptions:
    """:ivar text_format: ``model`` (text written for a model) or ``json`` (the response
        object as JSON text, for programs that parse text).
    :ivar legacy_tools: also list the deprecated read wrappers (they are callable anyway).
    :ivar structured_content: ``always`` sends the response object as structured content
        (and lists output schemas); ``never`` sends text only; ``auto`` (default) does so
        except for clients that would show the model the structured content instead of
        the text (Claude Code, Codex).
    """

    text_format: TextFormat = "model"
    legacy_tools: bool = False
    structured_content: StructuredContent = "auto"

    def structured_for(self, client_name: str | None) -> bool:
        """Whether a client of this name gets structured content and output schemas."""
        if self.structured_content != "auto":
            return self.structured_content == "always"
        name = (client_name or "").lower()
        return not any(marker in name for marker in STRUCTURED_FIRST_CLIENTS)


def _top_level(path: Path, table: tuple[str, ...]) -> Mapping[str, Any]:
    try:
        with path.open("rb") as handle:
            data: Any = tomllib.load(handle)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # the kernel's settings loader reports a broken file
    for key in table:
        data = data.get(key, {}) if isinstance(data, Mapping) else {}
    return data if isinstance(data, Mapping) else {}


def _flag(value: object, origin: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise OptionsError(f"legacy_tools (from {origin}) must be true or false, not {value!r}")


def _checked(key: str, value: object, origin: str) -> object:
    """The value of option ``key`` as the server uses it; OptionsError names a bad one."""
    if key == "legacy_tools":
        return _flag(value, origin)
    allowed = TEXT_FORMATS if key == "text_format" else STRUCTURED_CONTENT
    if value not in allowed:
        raise OptionsError(f"{key} (from {origin}) must be one of "
                           f"{', '.join(allowed)}, not {value!r}")
    return value


def load_options(workspace: Path | None,
                 environ: Mapping[str, str] | None = None) -> ServerOptions:
    """The options for a server on ``workspace`` (None: environment and defaults only).

    A bad value in a workspace file (the agent can write those) is logged and left out,
    so the server starts on the defaults; a bad value in the environment stops it.
    """
    environ = os.environ if environ is None else environ
    values: dict[str, object] = {}
    if workspace is not None:
        for path, table, origin in (
                (workspace / "pyproject.toml", ("tool", "sari"), "pyproject.toml [tool.sari]"),
                (workspace / "sari.toml", (), "sari.toml")):
            found = _top_level(path, table)
            for key in OPTION_KEYS:
                if key in found:
                    try:
                        values[key] = _checked(key, found[key], origin)
                    except OptionsError as exc:
                        log.warning("presentation option ignored: %s", exc)
    for key, variable in zip(OPTION_KEYS, OPTION_VARIABLES, strict=True):
        if environ.get(variable, "").strip():
            values[key] = _checked(key, environ[variable].strip(), variable)
    return ServerOptions(**values)  # type: ignore[arg-type]
