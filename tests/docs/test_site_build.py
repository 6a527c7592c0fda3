"""The documentation site builds with warnings as errors, and its generated pages are complete."""

from __future__ import annotations

import html
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from drift import REPO_ROOT

from sari_core.kernel.hookspecs import HOOK_NAMES


def text_of(page: Path) -> str:
    """The page's text as a reader sees it (no tags, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        pytest.skip("mkdocs is not installed here (tox -e docs builds the site)")
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    return out


def test_the_hook_reference_renders_every_spec_docstring(site: Path) -> None:
    page = (site / "reference" / "hooks" / "index.html").read_text()
    for name in HOOK_NAMES:
        assert f'id="sari_core.kernel.hookspecs.{name}"' in page, name
    assert "the validated read (any mode" in text_of(site / "reference" / "hooks" / "index.html")


def test_the_cli_reference_is_the_real_parser(site: Path) -> None:
    page = text_of(site / "reference" / "cli" / "index.html")
    for command in ("sari new-plugin", "sari plugins", "sari hook"):
        assert command in page
    assert "usage: sari new-plugin [-h] [--directory DIRECTORY] name" in page


def test_installed_plugin_codes_and_pages_are_listed(site: Path) -> None:
    if importlib.util.find_spec("sari_secretguard") is None:
        pytest.skip("sari-secretguard is not installed")
    codes = (site / "reference" / "reason-codes" / "index.html").read_text()
    assert "SECRET_FILE_BLOCKED" in codes
    assert (site / "plugins" / "secretguard" / "index.html").is_file()
    guide = text_of(site / "guide" / "plugin-author" / "index.html")
    assert "class SecretguardPlugin" in guide  # the real file, included at build time
