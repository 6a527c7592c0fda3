"""``sari new-plugin NAME`` scaffolds a distribution that installs and passes its own tests."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from isolated_venv import IsolatedVenv

from sari_core.cli.commands.new_plugin import PluginNames, render
from sari_core.cli.main import main

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def test_the_scaffold_has_the_entry_point_settings_tests_and_a_tox_env(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new-plugin", "acme_audit", "--directory", str(tmp_path)]) == 0
    root = tmp_path / "sari-acme-audit"
    assert "Created sari-acme-audit" in capsys.readouterr().out
    document = tomllib.loads((root / "pyproject.toml").read_text())
    project = document["project"]
    assert document["build-system"]["build-backend"] == "setuptools.build_meta"
    assert document["tool"]["setuptools"]["packages"]["find"]["include"] == ["sari_acme_audit*"]
    assert document["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]
    assert project["name"] == "sari-acme-audit"
    assert project["dependencies"] == ["sari-core"]
    assert project["entry-points"]["sari"] == {
        "acme_audit": "sari_acme_audit.plugin:AcmeAuditPlugin"}
    # It declares that it answers no client hook, so `sari hook` never imports it.
    assert project["entry-points"]["sari.client_hooks"] == project["entry-points"]["sari"]
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "README.md", "pyproject.toml", "sari_acme_audit/__init__.py",
        "sari_acme_audit/plugin.py",
        "sari_acme_audit/py.typed", "sari_acme_audit/settings.py",
        "tests/test_acme_audit.py", "tox.ini"]
    assert "[testenv]" in (root / "tox.ini").read_text()
    for path, text in render(PluginNames("acme_audit")).items():
        if path.endswith(".py"):
            compile(text, path, "exec")  # every generated module is valid Python


def test_the_readme_documents_the_settings_in_the_docs_format(tmp_path: Path) -> None:
    """The scaffold teaches the settings-table format the docs' drift tests parse."""
    root = tmp_path / "sari-acme-audit"
    assert main(["new-plugin", "acme_audit", "--directory", str(tmp_path)]) == 0
    spec = importlib.util.spec_from_file_location("scaffold_settings",
                                                  root / "sari_acme_audit" / "settings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # pydantic resolves the fields' annotations in the module's namespace, found by name.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    defaults = module.AcmeAuditSettings().model_dump(mode="json")
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", (root / "README.md").read_text(), re.M))
    assert rows == {field: json.dumps(value) for field, value in defaults.items()}
    assert "`ACME_AUDIT_WATCHED_PATH`" in (root / "README.md").read_text()


@pytest.mark.parametrize("bad", ["Demo", "1demo", "demo-plugin", "de mo", ""])
def test_names_that_cannot_be_an_entry_point_and_section_are_refused(
        bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new-plugin", bad, "--directory", str(tmp_path)]) == 2
    assert "is not a plugin name" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_an_existing_folder_is_never_overwritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sari-demo").mkdir()
    (tmp_path / "sari-demo" / "keep.txt").write_text("mine")
    assert main(["new-plugin", "demo", "--directory", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (tmp_path / "sari-demo" / "keep.txt").read_text() == "mine"


@pytest.mark.slow
def test_the_demo_scaffold_installs_into_a_fresh_venv_and_its_tests_pass(
        tmp_path: Path, sari_core_wheel: Path) -> None:
    assert main(["new-plugin", "demo", "--directory", str(tmp_path)]) == 0
    env = IsolatedVenv(tmp_path / "venv")
    env.install(sari_core_wheel, tmp_path / "sari-demo")
    # Run from outside the scaffold so its package is imported from the install, not the folder.
    result = env.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     str(tmp_path / "sari-demo" / "tests"), cwd=tmp_path)
    assert " passed" in result.stdout and "failed" not in result.stdout
    shown = env.run("sari", "plugins", "--json").stdout
    assert '"name": "demo"' in shown and '"distribution": "sari-demo"' in shown
    # Installed, it declares no client hook: a client's hook call does not import it.
    probe = ("import io, sys; sys.stdin = io.StringIO('{}'); from sari_core.cli.main import main; "
             "main(['hook', 'claude-code', 'post-tool-use']); print('sari_demo' in sys.modules)")
    assert env.run("python", "-c", probe, cwd=tmp_path).stdout.strip() == "False"


def tox_sari_core(root: Path) -> str:
    """The sari-core the scaffold's tox installs when SARI_CORE_SPEC is not set."""
    (line,) = [line.strip() for line in (root / "tox.ini").read_text().splitlines()
               if "SARI_CORE_SPEC:" in line]
    default = line.removeprefix("{env:SARI_CORE_SPEC:").removesuffix("}")
    return default.replace("{toxinidir}", str(root))


def test_a_plugin_made_inside_a_checkout_tests_against_that_checkout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checkout = tmp_path / "sari"
    (checkout / "sari_core").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text('[project]\nname = "sari-core"\n')
    (checkout / "plugins").mkdir()
    assert main(["new-plugin", "acme_audit", "--directory", str(checkout / "plugins")]) == 0
    root = checkout / "plugins" / "sari-acme-audit"
    assert Path(tox_sari_core(root)).resolve() == checkout.resolve()
    assert "from the checkout this plugin is in" in capsys.readouterr().out


def test_outside_a_checkout_tox_uses_the_checkout_sari_core_was_installed_from(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sari_core.cli.commands.new_plugin import installed_from

    assert main(["new-plugin", "acme_audit", "--directory", str(tmp_path)]) == 0
    spec = tox_sari_core(tmp_path / "sari-acme-audit")
    here = installed_from()  # this suite's sari-core: installed from a folder
    assert here is not None and Path(spec) == here and (here / "sari_core").is_dir()
    assert "SARI_CORE_SPEC=" in capsys.readouterr().out


def test_from_an_index_tox_asks_the_index_for_this_version_and_says_what_to_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from sari_core.cli.commands import new_plugin

    monkeypatch.setattr(new_plugin, "installed_from", lambda: None)  # as from a wheel
    assert main(["new-plugin", "acme_audit", "--directory", str(tmp_path)]) == 0
    root = tmp_path / "sari-acme-audit"
    assert tox_sari_core(root) == f"sari-core>={version('sari-core')}"
    said = capsys.readouterr().out
    assert "from the package index" in said and "SARI_CORE_SPEC=PATH-OR-REQUIREMENT" in said
    assert "set SARI_CORE_SPEC" in (root / "tox.ini").read_text()
