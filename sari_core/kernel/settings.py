"""Plugin settings: one pydantic model per plugin section, from the operator and the workspace.

Sources, later ones winning:

1. the operator's config file (``config.toml`` in the user's config folder, or the file
   ``SARI_CONFIG_FILE`` names): ``[<section>]`` tables, and ``trusted_workspaces``;
2. the workspace: ``[tool.sari.<section>]`` in ``pyproject.toml``, then ``[<section>]`` in
   ``sari.toml``;
3. explicit overrides given to the kernel;
4. environment variables ``SARI_<SECTION>__<FIELD>`` (JSON values allowed, e.g.
   ``SARI_BUDGET__MAX_READS_PER_SESSION=40``).

The workspace belongs to the agent, so its files are not trusted: every field declares
which way it is tighter (:mod:`sari_core.kernel.trust`), and a workspace value that does
not move it that way from the operator's value — or that sets an operator-only field, or a
field declaring no direction — is ignored there (one warning naming the key) unless the
operator lists the workspace in ``trusted_workspaces``; and a workspace
file that is not valid TOML, or holds an unknown or invalid value, is reported and left
out of its section, so the server runs on the operator's settings instead of stopping.
An invalid value from the operator's side still stops the kernel, naming key and source.
Workspace files are read once, when the kernel starts.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sari_core.kernel.trust import is_trusted, workspace_rule
from sari_core.locations import config_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

log = logging.getLogger(__name__)

TRUSTED_KEY = "trusted_workspaces"
TRUSTED_ENV = "SARI_TRUSTED_WORKSPACES"
OPERATOR = "operator"
WORKSPACE = "workspace"


@dataclass(frozen=True)
class SettingsSpec:
    """A plugin's settings section name and its pydantic model (all fields defaulted)."""

    section: str
    model: type[BaseModel]


class SettingsError(Exception):
    """A settings value is invalid; the message names the key and the source."""


@dataclass(frozen=True)
class _Layer:
    source: str  # as shown to people: "sari.toml [budget]"
    side: str  # OPERATOR or WORKSPACE
    values: Mapping[str, Any]


@dataclass
class _Files:
    """The TOML files read at start, and what was wrong with the workspace's."""

    operator: dict[str, Any] = field(default_factory=dict)
    operator_source: str = "operator config"
    pyproject: dict[str, Any] = field(default_factory=dict)
    sari_toml: dict[str, Any] = field(default_factory=dict)
    trusted: bool = False
    notices: list[str] = field(default_factory=list)


def _read_toml(path: Path) -> dict[str, Any]:
    """The file's table ({} when it does not exist); raises SettingsError when broken."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from exc


def _read_workspace_toml(path: Path, notices: list[str]) -> dict[str, Any]:
    """A workspace file's table; a broken one is a notice (by file name: notices reach the
    agent, which is never shown the server's absolute paths), not a stop."""
    try:
        return _read_toml(path)
    except SettingsError as exc:
        reason = exc.__cause__ or exc
        notices.append(f"{path.name} ignored, not valid TOML ({reason}); Sari runs on the "
                       "operator's settings")
        return {}


def _env_values(section: str, environ: Mapping[str, str]) -> dict[str, Any]:
    prefix = f"SARI_{section.upper()}__"
    values: dict[str, Any] = {}
    for key, raw in environ.items():
        if key.startswith(prefix):
            name = key[len(prefix):].lower()
            try:
                values[name] = json.loads(raw)
            except json.JSONDecodeError:
                values[name] = raw
    return values


def _inside(path: Path, folder: Path) -> bool:
    try:
        resolved, root = path.expanduser().resolve(), folder.resolve()
    except OSError:
        return False
    return resolved == root or root in resolved.parents


def _trusted_entries(operator: Mapping[str, Any], environ: Mapping[str, str],
                     source: str) -> list[str]:
    entries = operator.get(TRUSTED_KEY, [])
    if not isinstance(entries, list) or not all(isinstance(item, str) for item in entries):
        raise SettingsError(f"{TRUSTED_KEY} (from {source}) must be a list of folder paths")
    from_env = [item for item in environ.get(TRUSTED_ENV, "").split(os.pathsep) if item]
    for entry, origin in [*((item, source) for item in entries),
                          *((item, TRUSTED_ENV) for item in from_env)]:
        # A relative entry ("", ".") would mean whatever folder the server starts in.
        if not Path(entry.strip()).expanduser().is_absolute():
            raise SettingsError(f"{TRUSTED_KEY} entry {entry!r} (from {origin}) is not an "
                                "absolute path; name the folder in full (or from ~)")
    return [*entries, *from_env]


def _read_files(workspace: Path | None, operator_file: Path | None,
                environ: Mapping[str, str], other_roots: Sequence[Path] = ()) -> _Files:
    files = _Files()
    path = config_file() if operator_file is None else operator_file
    files.operator_source = str(path)
    roots = [*([workspace] if workspace is not None else []), *other_roots]
    if any(_inside(path, root) for root in roots):
        # The agent can write anything in the workspace, this file included.
        files.notices.append(f"the operator config file ({path.name}) lies inside the "
                             "workspace and is ignored: the agent could write it")
    else:
        files.operator = _read_toml(path)
    trusted = _trusted_entries(files.operator, environ, files.operator_source)
    if workspace is None:
        return files
    files.trusted = is_trusted(workspace, trusted)
    pyproject = _read_workspace_toml(workspace / "pyproject.toml", files.notices)
    tool = pyproject.get("tool", {})
    from_pyproject = tool.get("sari", {}) if isinstance(tool, Mapping) else {}
    if not isinstance(from_pyproject, Mapping):
        files.notices.append("pyproject.toml [tool.sari] ignored: it is not a table")
        from_pyproject = {}
    files.pyproject = dict(from_pyproject)
    files.sari_toml = _read_workspace_toml(workspace / "sari.toml", files.notices)
    return files


def _section_table(values: Any, source: str, side: str, notices: list[str]) -> Mapping[str, Any]:
    if isinstance(values, Mapping):
        return values
    if side == OPERATOR:
        raise SettingsError(f"{source} must be a table of settings, not {values!r}")
    notices.append(f"{source} ignored: it is not a table of settings")
    return {}


class SettingsStore:
    """Validated settings of every registered section, loaded once per kernel.

    :ivar notices: what was ignored in the workspace's files and why (one line each),
        for the server log, ``sari doctor`` and the first tool result.
    :ivar trusted_workspace: whether the operator trusts the workspace (its files may
        then set operator-only settings too).
    """

    def __init__(self, sections: dict[str, BaseModel] | None = None,
                 notices: list[str] | None = None, trusted_workspace: bool = False) -> None:
        self._sections: dict[str, BaseModel] = dict(sections or {})
        self.notices: list[str] = list(notices or [])
        self.trusted_workspace = trusted_workspace

    @classmethod
    def load(
        cls,
        specs: list[SettingsSpec],
        workspace: Path | None,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
        operator_file: Path | None = None,
        other_roots: Sequence[Path] = (),
    ) -> SettingsStore:
        """Read every source once and validate each section.

        :param workspace: the first root, whose files are the workspace's settings.
        :param operator_file: the operator's config file (default: :func:`config_file`).
        :param other_roots: the workspace's other roots: the agent can write in them too, so
            an operator config file inside any of them is not read either.
        """
        environ = os.environ if environ is None else environ
        files = _read_files(workspace, operator_file, environ, other_roots)
        notices = files.notices
        sections: dict[str, BaseModel] = {}
        for spec in specs:
            if spec.section in sections:
                raise SettingsError(f"settings section {spec.section!r} is registered twice")
            name = spec.section
            raw = [
                (f"{files.operator_source} [{name}]", OPERATOR, files.operator.get(name, {})),
                (f"pyproject.toml [tool.sari.{name}]", WORKSPACE, files.pyproject.get(name, {})),
                (f"sari.toml [{name}]", WORKSPACE, files.sari_toml.get(name, {})),
                ("settings overrides", OPERATOR, (overrides or {}).get(name, {})),
                (f"environment SARI_{name.upper()}__*", OPERATOR, _env_values(name, environ)),
            ]
            layers = [_Layer(source, side, _section_table(values, source, side, notices))
                      for source, side, values in raw]
            sections[name] = _section(spec, layers, files.trusted, notices)
        for notice in notices:
            log.warning("settings: %s", notice)
        return cls(sections, notices, files.trusted)

    def get(self, section: str) -> Any:
        try:
            return self._sections[section]
        except KeyError:
            raise KeyError(f"no settings section {section!r} is registered") from None

    def sections(self) -> dict[str, BaseModel]:
        return dict(sorted(self._sections.items()))


def _section(spec: SettingsSpec, layers: list[_Layer], trusted: bool,
             notices: list[str]) -> BaseModel:
    """Merge the layers (operator-only keys from a workspace left out unless trusted) and
    validate; a workspace layer that does not validate is left out, with a notice."""
    if not trusted:
        layers = [_untrusted(spec, layer, layers, notices) if layer.side == WORKSPACE
                  else layer for layer in layers]
    merged, origin = _merge(layers)
    problem = _problem(spec, merged, origin)
    if problem is not None and problem[0].side == WORKSPACE:
        bad, message = problem
        notices.append(f"{bad.source} ignored ({message}); [{spec.section}] runs on the "
                       "operator's settings")
        merged, origin = _merge([layer for layer in layers if layer.side == OPERATOR])
        problem = _problem(spec, merged, origin)
    if problem is not None:
        raise SettingsError(problem[1])
    return spec.model.model_validate(merged)


def _untrusted(spec: SettingsSpec, layer: _Layer, layers: list[_Layer],
               notices: list[str]) -> _Layer:
    """``layer`` without the values that do not tighten their setting: the one place where
    a workspace value is judged against the direction its field declares."""
    kept: dict[str, Any] = {}
    for key, value in layer.values.items():
        if key not in spec.model.model_fields:  # unknown: reported when validated
            kept[key] = value
            continue
        marker = workspace_rule(spec.model, key)
        if marker.allows(value, _baseline(spec, key, layers)):
            kept[key] = value
            continue
        notices.append(f"{spec.section}.{key} in {layer.source} ignored: {marker.why}; "
                       f"only the operator may set it ({marker.describe()}), in their own "
                       "config file, the environment, or by trusting this workspace")
    return _Layer(layer.source, layer.side, kept)


def _baseline(spec: SettingsSpec, key: str, layers: list[_Layer]) -> Any:
    """The value ``key`` has on the operator's side alone (their file, else the default)."""
    for layer in reversed(layers):
        if layer.side == OPERATOR and key in layer.values:
            return layer.values[key]
    return spec.model.model_fields[key].get_default(call_default_factory=True)


def _merge(layers: list[_Layer]) -> tuple[dict[str, Any], dict[str, _Layer]]:
    merged: dict[str, Any] = {}
    origin: dict[str, _Layer] = {}
    for layer in layers:
        for key, value in layer.values.items():
            merged[key] = value
            origin[key] = layer
    return merged, origin


_DEFAULTS = _Layer("defaults", OPERATOR, {})


def _problem(spec: SettingsSpec, values: dict[str, Any],
             origin: dict[str, _Layer]) -> tuple[_Layer, str] | None:
    """The first unknown or invalid value: the layer it came from and a message naming it."""
    known = set(spec.model.model_fields)
    unknown = sorted(set(values) - known)
    if unknown:
        key = unknown[0]
        return origin[key], (f"unknown setting {spec.section}.{key} (from {origin[key].source}); "
                             f"valid keys: {', '.join(sorted(known))}")
    try:
        spec.model.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        layer = origin.get(str(error["loc"][0]), _DEFAULTS) if error["loc"] else _DEFAULTS
        return layer, (f"invalid setting {spec.section}.{key} (from {layer.source}): "
                       f"{error['msg']}")
    return None


def settings_notice(notices: list[str]) -> str | None:
    """One line for the first tool result: what of the workspace's config was ignored."""
    if not notices:
        return None
    more = f" (and {len(notices) - 1} more; `sari doctor` lists them)" if len(notices) > 1 else ""
    return f"Sari config: {notices[0]}{more}."
