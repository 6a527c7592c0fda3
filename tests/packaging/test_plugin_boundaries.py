"""Every first-party plugin imports Sari from ``sari_core`` alone.

A plugin that imported another plugin's modules would break when installed alone, and
would tie two distributions' internals together; what plugins share lives in ``sari_core``'s
public names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


def _sari_imports(source: Path) -> set[str]:
    """The top-level ``sari*`` packages a module imports, at any depth of its code."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return {name for name in names if name.startswith("sari")}


def _packages() -> list[Path]:
    return sorted(package for distribution in PLUGINS.iterdir() if distribution.is_dir()
                  for package in distribution.glob("sari_*") if package.is_dir())


@pytest.mark.parametrize("package", _packages(), ids=lambda package: package.name)
def test_a_plugin_imports_from_sari_core_and_itself_only(package: Path) -> None:
    foreign = {f"{module.relative_to(PLUGINS)}: {name}"
               for module in package.rglob("*.py")
               for name in _sari_imports(module) - {"sari_core", package.name}}
    assert not foreign, f"plugins share code through sari_core only: {sorted(foreign)}"


def test_every_first_party_plugin_is_checked() -> None:
    assert len(_packages()) >= 9
