"""Plugin settings: one pydantic model per plugin section, read from the workspace.

Sources, later ones winning: ``[tool.sari.<section>]`` in the workspace's
``pyproject.toml``, ``[<section>]`` in ``sari.toml``, explicit overrides given to
the kernel, then environment variables ``SARI_<SECTION>__<FIELD>`` (JSON values
allowed, e.g. ``SARI_BUDGET__MAX_READS_PER_SESSION=40``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass(frozen=True)
class SettingsSpec:
    """A plugin's settings section name and its pydantic model (all fields defaulted)."""

    section: str
    model: type[BaseModel]


class SettingsError(Exception):
    """A settings value is invalid; the message names the key and the source."""


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from exc


def _env_values(section: str, environ: Mapping[str, str]) -> dict[str, Any]:
    prefix = f"SARI_{section.upper()}__"
    values: dict[str, Any] = {}
    for key, raw in environ.items():
        if key.startswith(prefix):
            field = key[len(prefix):].lower()
            try:
                values[field] = json.loads(raw)
            except json.JSONDecodeError:
                values[field] = raw
    return values


class SettingsStore:
    """Validated settings of every registered section, loaded once per kernel."""

    def __init__(self, sections: dict[str, BaseModel] | None = None) -> None:
        self._sections: dict[str, BaseModel] = dict(sections or {})

    @classmethod
    def load(
        cls,
        specs: list[SettingsSpec],
        workspace: Path | None,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> SettingsStore:
        environ = os.environ if environ is None else environ
        pyproject = _read_toml(workspace / "pyproject.toml") if workspace else {}
        from_pyproject = pyproject.get("tool", {}).get("sari", {})
        from_sari_toml = _read_toml(workspace / "sari.toml") if workspace else {}
        sections: dict[str, BaseModel] = {}
        for spec in specs:
            if spec.section in sections:
                raise SettingsError(f"settings section {spec.section!r} is registered twice")
            layers: list[tuple[str, Mapping[str, Any]]] = [
                (f"pyproject.toml [tool.sari.{spec.section}]", from_pyproject.get(spec.section, {})),
                (f"sari.toml [{spec.section}]", from_sari_toml.get(spec.section, {})),
                ("settings overrides", (overrides or {}).get(spec.section, {})),
                (f"environment SARI_{spec.section.upper()}__*", _env_values(spec.section, environ)),
            ]
            merged: dict[str, Any] = {}
            origin: dict[str, str] = {}
            for source, values in layers:
                for key, value in values.items():
                    merged[key] = value
                    origin[key] = source
            sections[spec.section] = _validate(spec, merged, origin)
        return cls(sections)

    def get(self, section: str) -> Any:
        try:
            return self._sections[section]
        except KeyError:
            raise KeyError(f"no settings section {section!r} is registered") from None

    def sections(self) -> dict[str, BaseModel]:
        return dict(sorted(self._sections.items()))


def _validate(spec: SettingsSpec, values: dict[str, Any], origin: dict[str, str]) -> BaseModel:
    known = set(spec.model.model_fields)
    unknown = sorted(set(values) - known)
    if unknown:
        key = unknown[0]
        raise SettingsError(
            f"unknown setting {spec.section}.{key} (from {origin[key]}); "
            f"valid keys: {', '.join(sorted(known))}"
        )
    try:
        return spec.model.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        source = origin.get(str(error["loc"][0]), "defaults") if error["loc"] else "defaults"
        raise SettingsError(
            f"invalid setting {spec.section}.{key} (from {source}): {error['msg']}"
        ) from exc
