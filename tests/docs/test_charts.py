"""The benchmark charts are drawn at build time from ``docs/data/*.json``: each data file the
page asks for exists and draws, and a missing one stops the build with the command to run."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the docs' charts are drawn with matplotlib")
pytest.importorskip("mkdocs", reason="the charts are an MkDocs hook")

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_hooks"))
import sari_charts  # noqa: E402 - the hooks folder is put on the path just above


def test_every_chart_the_benchmarks_page_asks_for_draws_from_its_data_file() -> None:
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    names = re.findall(r"<!-- sari:chart ([\w-]+) -->", page)
    assert {"agent-cost", "search-quality", "cache-tiers", "startup"} <= set(names)
    for name in names:
        assert sari_charts.render(name, DOCS).lstrip().startswith("<?xml")


def test_a_missing_data_file_stops_the_build_naming_the_command_that_writes_it(
        tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    with pytest.raises(FileNotFoundError, match=r"docs/data/cache_sim\.json.*"
                                                r"python bench/cache_sim\.py --json"):
        sari_charts.render("cache-tiers", tmp_path)
