"""Checks that the documentation says what the code does; each returns a list of problems.

Sources of truth are the running objects — the plugin manager's hook specs, the reason
registry, each installed plugin's registrations — never a copy, so a spec, code or setting
added anywhere shows up here. Pages are read as written (Markdown source), since generated
blocks would document anything trivially.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable
from importlib import resources
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sari_core.kernel.manager import SariPluginManager
from sari_core.kernel.reasons import ReasonCode, ReasonCodeSpec
from sari_core.kernel.settings import SettingsSpec

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS = REPO_ROOT / "docs"
HOOK_PAGE = DOCS / "reference" / "hooks.md"
REASON_PAGE = DOCS / "reference" / "reason-codes.md"
RESPONSES_PAGE = DOCS / "reference" / "responses.md"
CORE_SETTINGS_PAGE = DOCS / "configuration.md"
CONCEPTS_PAGE = DOCS / "concepts.md"

_DIRECTIVE = re.compile(r"^:::\s+(?P<module>[\w.]+)\.(?P<name>\w+)\s*$", re.M)
# | `field` | `<json default>` | meaning |
_SETTING_ROW = re.compile(r"^\|\s*`(?P<field>\w+)`\s*\|\s*`(?P<default>[^`]*)`\s*\|", re.M)


def page_text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _relative(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


# --- hooks ----------------------------------------------------------------------------


def hook_specs(pm: SariPluginManager) -> dict[str, Any]:
    """Hook name -> pluggy ``HookSpec`` of every spec the manager knows (kernel and added)."""
    return {name: caller.spec for name, caller in vars(pm.hook).items()
            if getattr(caller, "spec", None) is not None}


def hook_reference_problems(pm: SariPluginManager, page: str) -> list[str]:
    """Every spec rendered on the hook page, with each parameter and the return documented."""
    documented = {(m["module"], m["name"]) for m in _DIRECTIVE.finditer(page)}
    problems = []
    specs = hook_specs(pm)
    for name, spec in sorted(specs.items()):
        module = spec.function.__module__
        if (module, name) not in documented:
            problems.append(f"hook {name}: no '::: {module}.{name}' on {_relative(HOOK_PAGE)}")
        doc = spec.function.__doc__ or ""
        if not doc.strip():
            problems.append(f"hook {name}: the spec has no docstring")
            continue
        for arg in spec.argnames:
            if f":param {arg}:" not in doc:
                problems.append(f"hook {name}: parameter {arg!r} is not documented (:param {arg}:)")
        if ":return:" not in doc:
            problems.append(f"hook {name}: the return value is not documented (:return:)")
    for module, name in sorted(documented):
        if module.endswith("hookspecs") and name not in specs:
            problems.append(f"{_relative(HOOK_PAGE)} documents {module}.{name}, which is no hook")
    return problems


# --- reason codes ---------------------------------------------------------------------


def registry_json() -> dict[str, Any]:
    text = resources.files("sari_core.kernel").joinpath("reason_registry.json").read_text("utf-8")
    return json.loads(text)


def kernel_reason_codes(codes: type[enum.Enum] = ReasonCode,
                        registry: dict[str, Any] | None = None) -> list[str]:
    """The enum's codes and ``reason_registry.json``'s codes (either may name one the other lacks)."""
    entries = (registry_json() if registry is None else registry)["codes"]
    return sorted({str(code.value) for code in codes} | {entry["code"] for entry in entries})


def kernel_reason_code_problems(codes: Iterable[str], page: str) -> list[str]:
    """Each kernel code has its own ``### `CODE` `` section on the reason-code page."""
    return [f"reason code {code}: no '### `{code}`' section on {_relative(REASON_PAGE)}"
            for code in codes if not re.search(rf"^###\s+`{re.escape(code)}`\s*$", page, re.M)]


def session_surface_problems(session_type: type, page: str) -> list[str]:
    """Every public member of the object a hook is handed as its session is named on the
    concepts page as ``session.<member>``: a plugin author learns that surface there."""
    members = sorted({name for klass in session_type.__mro__ if klass is not object
                      for name in [*vars(klass), *getattr(klass, "__slots__", ())]
                      if not name.startswith("_")})
    return [f"Session.{name}: not named as `session.{name}` on {_relative(CONCEPTS_PAGE)}"
            for name in members if f"`session.{name}" not in page]


def error_code_problems(codes: Iterable[str], page: str) -> list[str]:
    """Every error code is in the page's table, and the table lists no code that is gone."""
    codes = list(codes)
    missing = [f"error code {code}: not in the table of {_relative(RESPONSES_PAGE)}"
               for code in codes if not re.search(rf"^\|\s*`{re.escape(code)}`\s*\|", page, re.M)]
    listed = re.findall(r"^\|\s*`([A-Z_]+)`\s*\|", _error_table(page), re.M)
    stale = [f"error code {code}: documented in {_relative(RESPONSES_PAGE)} but not in ErrorCode"
             for code in listed if code not in codes]
    return missing + stale


def _error_table(page: str) -> str:
    """The '## Error codes' section of the responses page."""
    match = re.search(r"^## Error codes\s*$(.*?)(?=^## |\Z)", page, re.M | re.S)
    return match.group(1) if match else ""


# --- plugins: their reason codes and settings -----------------------------------------


def first_party_distributions() -> set[str]:
    """The distributions this repository holds (``plugins/sari-*``): the ones it documents."""
    return {folder.name for folder in (REPO_ROOT / "plugins").glob("sari-*")
            if (folder / "pyproject.toml").is_file()}


def installed_plugins() -> list[tuple[str, object]]:
    """(entry-point name, instance) of every installed plugin of the ``sari`` group that this
    repository holds, sorted by name (a third-party plugin installed beside them has its
    own docs, not a page here)."""
    ours = first_party_distributions()
    found = []
    for ep in sorted(entry_points(group="sari"), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        if dist is None or dist.metadata["Name"] not in ours:
            continue
        obj = ep.load()
        found.append((ep.name, obj() if isinstance(obj, type) else obj))
    return found


def _call(plugin: object, hook: str) -> Any:
    function = getattr(plugin, hook, None)
    return function() if callable(function) else None


def plugin_page(name: str, plugin: object) -> Path:
    spec: SettingsSpec | None = _call(plugin, "sari_register_settings")
    return DOCS / "plugins" / f"{spec.section if spec else name}.md"


def plugin_reason_code_problems(plugins: Iterable[tuple[str, object]]) -> list[str]:
    """Each code a plugin registers appears as `` `CODE` `` on the plugin's page."""
    problems = []
    for name, plugin in plugins:
        specs: list[ReasonCodeSpec] = list(_call(plugin, "sari_register_reason_codes") or [])
        page_path = plugin_page(name, plugin)
        page = page_text(page_path)
        for spec in specs:
            if not page:
                problems.append(f"plugin {name}: reason code {spec.code} has no page "
                                f"({_relative(page_path)} is missing)")
            elif f"`{spec.code}`" not in page:
                problems.append(f"plugin {name}: reason code {spec.code} is not on "
                                f"{_relative(page_path)}")
    return problems


def documented_defaults(page: str) -> dict[str, list[str]]:
    """field -> the default cells of every settings row naming it."""
    rows: dict[str, list[str]] = {}
    for match in _SETTING_ROW.finditer(page):
        rows.setdefault(match["field"], []).append(match["default"])
    return rows


def _same_json(documented: str, actual: Any) -> bool:
    try:
        return json.loads(documented) == actual
    except json.JSONDecodeError:
        return False


def settings_problems(section: str, model: type[BaseModel], page_path: Path) -> list[str]:
    """Each field of ``model`` has a row ``| `field` | `<json.dumps(default)>` | ... |``."""
    page = page_text(page_path)
    where = _relative(page_path)
    if not page:
        return [f"settings [{section}]: {where} is missing"]
    defaults = model().model_dump(mode="json")
    rows = documented_defaults(page)
    problems = []
    for field, info in model.model_fields.items():
        expected = json.dumps(defaults[field])
        if not info.description:
            problems.append(f"setting {section}.{field}: the model gives it no description")
        if field not in rows:
            problems.append(f"setting {section}.{field}: no row | `{field}` | `{expected}` | "
                            f"... | on {where}")
        elif not any(_same_json(cell, defaults[field]) for cell in rows[field]):
            problems.append(f"setting {section}.{field}: {where} says the default is "
                            f"`{rows[field][0]}`, the model's is `{expected}`")
    return problems


def plugin_settings_problems(plugins: Iterable[tuple[str, object]]) -> list[str]:
    problems = []
    for name, plugin in plugins:
        spec: SettingsSpec | None = _call(plugin, "sari_register_settings")
        if spec is not None:
            problems += settings_problems(spec.section, spec.model, plugin_page(name, plugin))
    return problems


# --- who may set what: the operator-only settings ---------------------------------------

_TRUST_ROW = re.compile(r"^\|\s*`(?P<key>[\w.]+)`\s*\|(?P<who>[^|]+)\|(?P<why>[^|]+)\|\s*$", re.M)


def trust_problems(models: dict[str, type[BaseModel]], page: str) -> list[str]:
    """Every operator-only field is in the trust table with who may set it and why, and
    the table lists no field that is not operator-only."""
    from sari_core.kernel.trust import operator_only_fields

    start = page.find("## Who may set what")
    table = page[start:page.find("\n## ", start + 1)] if start >= 0 else ""
    rows = {m["key"]: (m["who"].strip(), m["why"].strip()) for m in _TRUST_ROW.finditer(table)}
    problems = []
    marked = {f"{section}.{key}": marker for section, model in models.items()
              for key, marker in operator_only_fields(model).items()}
    for key, marker in sorted(marked.items()):
        if key not in rows:
            problems.append(f"operator-only setting {key}: not in the trust table of "
                            f"{_relative(CORE_SETTINGS_PAGE)}")
        elif rows[key] != (marker.describe(), marker.why):
            problems.append(f"operator-only setting {key}: the table says {rows[key]}, the "
                            f"model says {(marker.describe(), marker.why)}")
    # A row of a plugin not installed here is not judged (the core-alone run).
    problems += [f"setting {key}: in the trust table but not operator-only"
                 for key in sorted(set(rows) - set(marked)) if key.split(".")[0] in models]
    return problems
