"""How the server presents itself: ``text_format``, ``legacy_tools`` and
``structured_content`` of ``[tool.sari]``.

Read from the workspace's ``pyproject.toml`` (``[tool.sari]``) and ``sari.toml`` (top
level), the latter winning, then ``SARI_TEXT_FORMAT`` / ``SARI_LEGACY_TOOLS`` /
``SARI_STRUCTURED_CONTENT``. These are
presentation choices of the server, not policy: the kernel never reads them.
"""

from __future__ import annotations

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
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


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
    except (FileNotFoundError, tomllib.TOMLDecodeError):
        return {}  # the kernel's settings loader reports a broken file with its location
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


def load_options(workspace: Path | None,
                 environ: Mapping[str, str] | None = None) -> ServerOptions:
    """The options for a server on ``workspace`` (None: environment and defaults only)."""
    environ = os.environ if environ is None else environ
    values: dict[str, tuple[object, str]] = {}
    if workspace is not None:
        for path, table, origin in (
                (workspace / "pyproject.toml", ("tool", "sari"), "pyproject.toml [tool.sari]"),
                (workspace / "sari.toml", (), "sari.toml")):
            found = _top_level(path, table)
            for key in ("text_format", "legacy_tools", "structured_content"):
                if key in found:
                    values[key] = (found[key], origin)
    for key, variable in (("text_format", "SARI_TEXT_FORMAT"),
                          ("legacy_tools", "SARI_LEGACY_TOOLS"),
                          ("structured_content", "SARI_STRUCTURED_CONTENT")):
        if environ.get(variable, "").strip():
            values[key] = (environ[variable].strip(), variable)
    text_format, origin = values.get("text_format", ("model", "default"))
    if text_format not in TEXT_FORMATS:
        raise OptionsError(f"text_format (from {origin}) must be one of "
                           f"{', '.join(TEXT_FORMATS)}, not {text_format!r}")
    legacy = values.get("legacy_tools", (False, "default"))
    structured, origin = values.get("structured_content", ("auto", "default"))
    if structured not in STRUCTURED_CONTENT:
        raise OptionsError(f"structured_content (from {origin}) must be one of "
                           f"{', '.join(STRUCTURED_CONTENT)}, not {structured!r}")
    return ServerOptions(text_format=text_format,  # type: ignore[arg-type]
                         legacy_tools=_flag(*legacy),
                         structured_content=structured)  # type: ignore[arg-type]
