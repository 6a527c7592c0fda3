"""Each plugin distribution builds a wheel and installs alone, next to sari-core, into a fresh
venv, where ``sari plugins --json`` shows exactly it.

A plugin is checked where it is installed in the running environment (as
plugins/sari-<plugin>/tests are), so the tox env of one plugin checks that plugin and the ``all`` env checks every one.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from isolated_venv import REPO_ROOT, IsolatedVenv, build_wheel

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

KNOWN = ["budget", "relevance", "aggregation", "refgate", "lspgate", "persistence", "ripple",
         "secretguard", "otel"]
PRESENT = sorted(p.parent.name.removeprefix("sari-")
                 for p in (REPO_ROOT / "plugins").glob("sari-*/pyproject.toml"))


@pytest.mark.slow
def test_a_fresh_venv_with_sari_core_alone_has_no_plugin(sari_core_wheel: Path,
                                                         tmp_path: Path) -> None:
    """The isolation every check below relies on: nothing of this environment's Sari leaks in."""
    env = IsolatedVenv(tmp_path / "venv")
    env.install(sari_core_wheel)
    rows = json.loads(env.run("sari", "plugins", "--json").stdout)
    assert rows and all(row["name"].startswith("sari.") for row in rows)  # built-ins only
    location = env.run("python", "-c", "import sari_core; print(sari_core.__file__)").stdout
    assert location.startswith(str(env.path))


@pytest.mark.slow
@pytest.mark.parametrize("plugin", sorted(set(KNOWN) | set(PRESENT)))
def test_wheel_installs_alone_and_sari_plugins_shows_exactly_it(
        plugin: str, sari_core_wheel: Path, tmp_path: Path) -> None:
    source = REPO_ROOT / "plugins" / f"sari-{plugin}"
    if not (source / "pyproject.toml").is_file():
        pytest.skip(f"plugins/sari-{plugin} is not in this checkout")
    if importlib.util.find_spec(f"sari_{plugin}") is None:
        pytest.skip(f"sari-{plugin} is not installed in this environment")
    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    entry_points = sorted(project["entry-points"]["sari"])

    wheel = build_wheel(source, tmp_path / "wheels", tmp_path / "scratch")
    assert wheel.name.startswith(project["name"].replace("-", "_") + "-")
    env = IsolatedVenv(tmp_path / "venv")
    env.install(sari_core_wheel, wheel)
    rows = json.loads(env.run("sari", "plugins", "--json").stdout)
    external = [row for row in rows if not row["name"].startswith("sari.")]
    assert sorted(row["name"] for row in external) == entry_points
    for row in external:
        assert row["distribution"] == project["name"]
        assert row["enabled"] is True
        assert row["hooks"], f"{row['name']} implements no hook"
        # The wheel carries its client hook declaration: what `sari hook` imports it for.
        declared = project["entry-points"]["sari.client_hooks"]
        assert row["client_hooks"] == sorted(
            key.removeprefix(f"{row['name']}.").replace(".", " ")
            for key in declared if key != row["name"])
