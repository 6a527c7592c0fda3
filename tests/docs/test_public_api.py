"""The plugin-facing surface: ``sari_core.__all__``, its reference page and the lint rule
that keeps plugins on it, checked against each other."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import sari_core

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO_ROOT = Path(__file__).resolve().parents[2]
API_PAGE = REPO_ROOT / "docs" / "reference" / "api.md"
_NAME_HEADING = re.compile(r"^### `(?P<name>\w+)`\s*$", re.M)


def page_names(text: str) -> list[str]:
    return _NAME_HEADING.findall(text)


def test_every_public_name_is_on_the_page_and_every_name_there_is_public() -> None:
    on_page = page_names(API_PAGE.read_text(encoding="utf-8"))
    public = set(sari_core.__all__)
    assert sorted(public - set(on_page)) == [], "public but not on the Plugin API page"
    assert sorted(set(on_page) - public) == [], "on the page but not in sari_core.__all__"
    assert len(on_page) == len(set(on_page)), "a name is described twice"


def test_a_name_missing_from_the_page_is_reported() -> None:
    names = page_names("### `Verdict`\nWhat a policy returns.\n### `hookimpl`\nThe marker.\n")
    assert names == ["Verdict", "hookimpl"]
    assert set(sari_core.__all__) - set(names)  # the check above would name the rest


def test_every_public_name_resolves() -> None:
    missing = [name for name in sari_core.__all__ if getattr(sari_core, name, None) is None]
    assert missing == []


def test_the_lint_rule_bans_every_submodule_but_testing() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    banned = set(lint["flake8-tidy-imports"]["banned-api"])
    package = REPO_ROOT / "sari_core"
    submodules = {f"sari_core.{path.stem}" for path in package.glob("*.py")
                  if path.stem != "__init__"}
    submodules |= {f"sari_core.{path.parent.name}" for path in package.glob("*/__init__.py")}
    assert sorted(submodules - {"sari_core.testing"} - banned) == []
    assert "sari_core.testing" not in banned
    assert "TID251" in lint["select"]
    assert lint["per-file-ignores"]["!plugins/*/sari_*/**"] == ["TID251"]


def test_first_party_plugin_packages_import_sari_core_alone() -> None:
    deeper = re.compile(r"^\s*(from|import)\s+sari_core\.(?!testing\b)", re.M)
    offenders = [str(path.relative_to(REPO_ROOT))
                 for path in sorted(REPO_ROOT.glob("plugins/*/sari_*/**/*.py"))
                 if deeper.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
