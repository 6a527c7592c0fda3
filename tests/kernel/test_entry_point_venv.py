"""A plugin distribution pip-installed into a fresh virtualenv is found by ``sari plugins``."""

from __future__ import annotations

import importlib.util
import json
import os
import site
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

import sari_core


def _site_packages(env: Path) -> Path:
    return next(env.glob("lib/python*/site-packages"))


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="posix venv layout")
def test_pip_installed_plugin_is_discovered_by_sari_plugins(tmp_path: Path) -> None:
    missing = [m for m in ("pip", "setuptools") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (the [test] extra installs them)")
    package = tmp_path / "sari-demo-ep"
    (package / "sari_demo_ep").mkdir(parents=True)
    (package / "pyproject.toml").write_text(textwrap.dedent('''
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "sari-demo-ep"
        version = "1.2.3"
        dependencies = ["sari-core"]

        [project.entry-points.sari]
        demo_ep = "sari_demo_ep:DemoPolicy"
    '''))
    (package / "sari_demo_ep" / "__init__.py").write_text(textwrap.dedent('''
        from sari_core import Verdict, hookimpl

        class DemoPolicy:
            @hookimpl
            def on_read_enter(self, call, session):
                return Verdict.warn("PREVIEW_DEGRADED", message="demo")
    '''))
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    # The fresh venv sees sari-core and its dependencies from this interpreter's paths,
    # but nothing of the plugin until pip installs it.
    parents = [p for p in [*site.getsitepackages(), str(Path(sari_core.__file__).parents[1])]
               if os.path.isdir(p)]
    # addsitedir (not a bare path line) so editable installs' own .pth finders run too.
    lines = [f"import site; site.addsitedir({p!r})" for p in parents]
    (_site_packages(env) / "_sari_parent.pth").write_text("\n".join(lines) + "\n")
    python = env / "bin" / "python"

    def plugins() -> list[dict]:
        out = subprocess.run([str(python), "-m", "sari_core.cli.main", "plugins", "--json"],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "SARI_PLUGINS": ""})
        return json.loads(out.stdout)

    assert "demo_ep" not in [row["name"] for row in plugins()]
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-deps", "--no-build-isolation", "--no-index", str(package)],
                   check=True, capture_output=True, text=True)
    rows = {row["name"]: row for row in plugins()}
    assert rows["demo_ep"]["distribution"] == "sari-demo-ep"
    assert rows["demo_ep"]["version"] == "1.2.3"
    assert rows["demo_ep"]["hooks"] == ["on_read_enter"]
    assert rows["demo_ep"]["enabled"] is True
