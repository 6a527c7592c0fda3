"""``sari new-plugin NAME``: scaffold a policy plugin distribution that passes its own tests.

The scaffold is the layout every Sari plugin uses: ``pyproject.toml`` with the
``sari`` entry point, a package with the hook implementations and a pydantic settings
model, tests that register the plugin on a fresh plugin manager and run it in a real
kernel, a ``tox.ini`` and a README whose settings table is in the format the docs'
drift tests parse. It is deliberately a working policy (it warns on reads of paths a
team marks as watched) so there is something real to change.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from sari_core.kernel.commands import CommandRegistry
from sari_core.kernel.loading import CLIENT_HOOKS_GROUP

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,38}$")


@dataclass(frozen=True)
class PluginNames:
    """Every spelling of a plugin's name, derived from the one the user gave."""

    name: str  # entry-point name and settings section: ``acme_audit``

    @property
    def distribution(self) -> str:
        return "sari-" + self.name.replace("_", "-")

    @property
    def package(self) -> str:
        return "sari_" + self.name

    @property
    def class_name(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("_")) + "Plugin"

    @property
    def settings_class(self) -> str:
        return self.class_name.removesuffix("Plugin") + "Settings"

    @property
    def reason_code(self) -> str:
        return f"{self.name.upper()}_WATCHED_PATH"


INIT = '''\
"""{distribution}: a Sari policy plugin."""

from {package}.plugin import {class_name}
from {package}.settings import {settings_class}

__all__ = ["{class_name}", "{settings_class}"]
'''

SETTINGS = '''\
"""Settings of the ``[tool.sari.{name}]`` section: every field has a default, a description,
and the direction in which it is tighter (a workspace file may only move it that way)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from sari_core import Tightens


class {settings_class}(BaseModel):
    enabled: Annotated[bool, Tightens("enable", "false stops the warnings")] = Field(
        True, description="Turn the policy on or off.")
    watched_globs: Annotated[list[str], Tightens("add", "a glob left out is not watched")] = Field(
        default_factory=list,
        description="Reads of paths matching these globs get a warning.",
    )
'''

PLUGIN = '''\
"""The {name} policy: warns when a read targets a path the team marked as watched."""

from __future__ import annotations

from fnmatch import fnmatchcase

from sari_core import (
    CallContext,
    CallRecord,
    Plugin,
    ReadCall,
    ReasonCodeSpec,
    Session,
    SettingsSpec,
    Verdict,
    hookimpl,
)

from {package}.settings import {settings_class}

SECTION = "{name}"
WATCHED_PATH = "{reason_code}"


class {class_name}(Plugin):
    """Instantiated once per kernel, with no arguments, from the ``sari`` entry point."""

    name = SECTION  # its name in ``sari plugins``, settings and PLUGIN_ERROR messages
    fail_closed = False  # if a hook raises, serve the call with a warning (True: refuse it)

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model={settings_class})

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec(WATCHED_PATH, "The read target matches a watched glob.",
                               severity="warning")]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session, ctx: CallContext
                      ) -> Verdict | None:
        settings: {settings_class} = session.settings(SECTION)
        glob = next((glob for glob in settings.watched_globs
                     if fnmatchcase(call.target, glob)), None) if settings.enabled else None
        if glob is None:
            return None
        ctx.scratch[SECTION] = glob  # this call's own space, seen again when it completes
        return Verdict.warn(WATCHED_PATH, message=f"{{call.target}} is a watched path; "
                            "check with its owners before relying on it.",
                            annotations={{"glob": glob}})

    @hookimpl
    def on_call_complete(self, record: CallRecord, session: Session, ctx: CallContext) -> None:
        if ctx.scratch.get(SECTION) is None or not record.ok:
            return
        counts: dict[str, int] = session.namespace(SECTION, dict)
        with session.lock:  # one session may be served on several threads
            counts["watched_reads"] = counts.get("watched_reads", 0) + 1

    @hookimpl
    def sari_collect_metrics(self, session: Session) -> dict[str, int]:
        counts: dict[str, int] = session.namespace(SECTION, dict)
        with session.lock:
            return {{f"{{SECTION}}_watched_reads": counts.get("watched_reads", 0)}}
'''

TEST = '''\
"""{distribution}: registered as the kernel registers it, found by its entry point, run in a kernel.

``sari_kernels`` and ``MemoryEngine`` come with sari-core (its pytest plugin and
``sari_core.testing``): kernels with exactly the plugins given, over files held in memory,
with Sari's state kept in the test's temporary folder.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from sari_core import Kernel
from sari_core.testing import Kernels, MemoryEngine, check_client_hook_declaration, check_plugin
from {package} import {class_name}

FILES = {{"app.py": "print('hello')\\n", "secret_plans.md": "# plans\\n"}}


def test_registers_as_the_kernel_registers_it() -> None:
    # A misspelt hook name or a mistyped plugin attribute fails here.
    assert "on_read_enter" in check_plugin({class_name}())


def test_the_entry_point_names_the_plugin() -> None:
    found = {{ep.name: ep for ep in entry_points(group="sari")}}
    assert found["{name}"].load() is {class_name}
    # It answers no client hook (`sari hook`), and its metadata says so.
    assert check_client_hook_declaration("{name}") == frozenset()


def kernel(sari_kernels: Kernels, **settings: object) -> Kernel:
    return sari_kernels.build(MemoryEngine(FILES), [{class_name}()], {{"{name}": settings}})


def test_a_watched_path_gets_a_warning(sari_kernels: Kernels) -> None:
    k = kernel(sari_kernels, watched_globs=["secret_*"])
    response = k.execute_read({{"mode": "file", "target": "secret_plans.md"}})
    assert response["ok"] is True
    stabilization = response["meta"]["stabilization"]
    assert stabilization["reason_codes"] == ["{reason_code}"]
    assert stabilization["annotations"] == {{"{name}": {{"glob": "secret_*"}}}}


def test_completed_watched_reads_are_counted_per_session(sari_kernels: Kernels) -> None:
    k = kernel(sari_kernels, watched_globs=["secret_*"])
    for _ in range(2):
        response = k.execute_read({{"mode": "file", "target": "secret_plans.md"}})
    other = k.execute_read({{"mode": "file", "target": "app.py", "session_id": "other"}})
    # A read is counted once it completed: the second response shows the first read.
    assert response["meta"]["stabilization"]["metrics_snapshot"]["{name}_watched_reads"] == 1
    assert other["meta"]["stabilization"]["metrics_snapshot"]["{name}_watched_reads"] == 0


def test_other_paths_are_left_alone(sari_kernels: Kernels) -> None:
    k = kernel(sari_kernels, watched_globs=["secret_*"])
    response = k.execute_read({{"mode": "file", "target": "app.py"}})
    assert response["ok"] is True
    assert response["meta"]["stabilization"]["reason_codes"] == []
'''

TOX = '''\
[tox]
env_list = py3

[testenv]
description = run {distribution}'s tests against sari-core
# sari-core from {sari_core_origin}. To test another, set SARI_CORE_SPEC to
# a checkout's folder or a requirement: SARI_CORE_SPEC=../sari tox
deps =
    pytest>=8
    {{env:SARI_CORE_SPEC:{sari_core}}}
set_env =
    SARI_STATE_DIR = {{env_tmp_dir}}/state
    SARI_CACHE_DIR = {{env_tmp_dir}}/cache
commands =
    pytest {{posargs:-q tests}}
'''

README = '''\
# {distribution}

A Sari policy plugin. Install it next to `sari-core` and it is loaded through its entry point
`{name}`: `pip install -e .`, then `sari plugins`.

It warns when a read targets a path matching `watched_globs` (reason code `{reason_code}`).

## Settings: `[tool.sari.{name}]`

| setting | default | meaning |
|---|---|---|
| `enabled` | `true` | Turn the policy on or off. |
| `watched_globs` | `[]` | Reads of paths matching these globs get a warning. |

## Reason codes

- `{reason_code}`: the read target matches a watched glob; the read is served with a warning
  and the glob under `meta.stabilization.annotations.{name}.glob`.

## Metrics

- `{name}_watched_reads`: watched reads the session completed.

## Tests

```bash
pip install -e ".[test]" && pytest      # or: tox
```
'''

FILES: dict[str, str] = {
    "README.md": README,
    "tox.ini": TOX,
    "{package}/__init__.py": INIT,
    "{package}/settings.py": SETTINGS,
    "{package}/plugin.py": PLUGIN,
    "{package}/py.typed": "",
    "tests/test_{name}.py": TEST,
}


# Above the scaffold's declaration of the client hook events its plugin answers: none.
CLIENT_HOOKS_COMMENT = (
    "The client hook events (`sari hook CLIENT EVENT`) it answers, read without importing it:",
    '"NAME.CLIENT.EVENT" for each, or NAME alone for none, valued as its `sari` entry. A plugin',
    "that declares nothing is imported on every hook call a client makes.",
)


def pyproject(names: PluginNames) -> str:
    """The distribution's ``pyproject.toml``, built as TOML rather than spliced as text."""
    import tomlkit

    document = tomlkit.document()
    document["build-system"] = {"requires": ["setuptools>=64", "wheel"],
                                "build-backend": "setuptools.build_meta"}
    project = tomlkit.table()
    project.update({"name": names.distribution, "version": "0.1.0",
                    "description": f"A Sari policy plugin: {names.name}.",
                    "requires-python": ">=3.10", "dependencies": ["sari-core"]})
    project["optional-dependencies"] = {"test": ["pytest>=8"]}
    entry_points = tomlkit.table(is_super_table=True)
    plugin = f"{names.package}.plugin:{names.class_name}"
    entry_points["sari"] = {names.name: plugin}
    client_hooks = tomlkit.table()
    for line in CLIENT_HOOKS_COMMENT:
        client_hooks.add(tomlkit.comment(line))
    client_hooks.add(names.name, plugin)
    entry_points[CLIENT_HOOKS_GROUP] = client_hooks
    project["entry-points"] = entry_points
    document["project"] = project
    tool = tomlkit.table(is_super_table=True)
    tool["setuptools"] = tomlkit.table(is_super_table=True)
    tool["setuptools"]["packages"] = tomlkit.table(is_super_table=True)
    tool["setuptools"]["packages"]["find"] = {"include": [f"{names.package}*"]}
    tool["pytest"] = tomlkit.table(is_super_table=True)
    tool["pytest"]["ini_options"] = {"testpaths": ["tests"]}
    document["tool"] = tool
    return tomlkit.dumps(document)


@dataclass(frozen=True)
class SariCoreSource:
    """Where the scaffold's tox installs sari-core from: a pip requirement or folder, and
    what it is, in words."""

    spec: str
    origin: str


def checkout_around(folder: Path) -> Path | None:
    """The sari-core checkout ``folder`` lies in (a parent holding sari-core's
    ``pyproject.toml``), if any."""
    for parent in (folder, *folder.parents):
        pyproject_file = parent / "pyproject.toml"
        if pyproject_file.is_file() and (parent / "sari_core").is_dir() and re.search(
                r'^name\s*=\s*"sari-core"', pyproject_file.read_text(encoding="utf-8"), re.M):
            return parent
    return None


def installed_from() -> Path | None:
    """The local folder the running sari-core was installed from (a checkout installed
    with ``pip install -e`` or from its path); None when it came from a package index."""
    import sari_core

    running = checkout_around(Path(sari_core.__file__).resolve().parent)
    if running is not None:  # an editable install runs the checkout's own files
        return running
    for distribution in metadata.distributions(name="sari-core"):
        recorded = distribution.read_text("direct_url.json")
        url = urlparse(json.loads(recorded).get("url", "")) if recorded else None
        if url is not None and url.scheme == "file" and Path(unquote(url.path)).is_dir():
            return Path(unquote(url.path))
    return None


def sari_core_source(target: Path) -> SariCoreSource:
    """The checkout the plugin is created in, else the checkout the running sari-core was
    installed from, else the package index at this sari-core's version or later."""
    checkout = checkout_around(target.resolve().parent)
    if checkout is not None:
        relative = Path(os.path.relpath(checkout, target.resolve())).as_posix()
        return SariCoreSource("{toxinidir}/" + relative, "the checkout this plugin is in")
    folder = installed_from()
    if folder is not None:
        return SariCoreSource(folder.as_posix(), "the checkout sari-core was installed from")
    version = metadata.version("sari-core")
    return SariCoreSource(f"sari-core>={version}", "the package index")


INDEX_SOURCE = SariCoreSource("sari-core", "the package index")


def render(names: PluginNames, source: SariCoreSource = INDEX_SOURCE) -> dict[str, str]:
    """Relative path -> content of every file of the scaffold."""
    values = {"name": names.name, "distribution": names.distribution, "package": names.package,
              "class_name": names.class_name, "settings_class": names.settings_class,
              "reason_code": names.reason_code, "sari_core": source.spec,
              "sari_core_origin": source.origin}
    files = {path.format(**values): template.format(**values) for path, template in FILES.items()}
    return {"pyproject.toml": pyproject(names), **files}


def scaffold(name: str, directory: Path) -> Path:
    """Write the scaffold of plugin ``name`` into ``directory/sari-<name>``; return that folder.

    :raises ValueError: the name is not a lowercase identifier, or the folder is not empty.
    """
    if not NAME_PATTERN.match(name):
        raise ValueError(f"{name!r} is not a plugin name: use lowercase letters, digits and "
                         "underscores, starting with a letter (e.g. acme_audit).")
    names = PluginNames(name)
    target = directory / names.distribution
    if target.exists() and any(target.iterdir()):
        raise ValueError(f"{target} already exists and is not empty; pick another name or "
                         "--directory.")
    for relative, content in render(names, sari_core_source(target)).items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return target


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the plugin's name: entry point and settings section "
                        "(lowercase, e.g. acme_audit)")
    parser.add_argument("--directory", type=Path, default=Path("."),
                        help="where to create the sari-NAME folder (default: here)")


def run(args: argparse.Namespace) -> int:
    try:
        target = scaffold(args.name, args.directory)
    except ValueError as exc:
        print(f"sari new-plugin: {exc}", file=sys.stderr)
        return 2
    names = PluginNames(args.name)
    source = sari_core_source(target)
    print(f"Created {names.distribution} in {target}")
    print(f"  pip install -e {target}[test] && pytest {target}   # its tests pass as generated")
    print(f"  tox there installs sari-core from {source.origin} ({source.spec}); "
          "SARI_CORE_SPEC=PATH-OR-REQUIREMENT tox tests another")
    print(f"  then edit {names.package}/plugin.py; see the plugin author guide.")
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("new-plugin", "Scaffold a policy plugin distribution (entry point, hooks, "
                 "settings, tests, tox.ini) that passes its own tests.", configure, run)
