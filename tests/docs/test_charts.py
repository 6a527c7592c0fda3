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


def test_the_charts_come_first_on_the_benchmarks_page() -> None:
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", page, flags=re.MULTILINE)
    first = sections[1]
    assert first.startswith("Charts\n")
    assert set(re.findall(r"<!-- sari:chart ([\w-]+) -->", first)) == set(sari_charts.CHARTS)
    assert not any("<!-- sari:chart" in later for later in sections[2:])


def _boxes(axes, renderer):
    """Display boxes of what a legend must not cover: bars, their labels, points."""
    from matplotlib.transforms import Bbox

    boxes = [patch.get_window_extent(renderer) for patch in axes.patches
             if patch.get_width() and patch.get_height()]
    boxes += [text.get_window_extent(renderer) for text in axes.texts if text.get_text()]
    for collection in axes.collections:
        for x, y in axes.transData.transform(collection.get_offsets()):
            boxes.append(Bbox.from_extents(x - 2, y - 2, x + 2, y + 2))
    return boxes


@pytest.mark.parametrize("name", sorted(sari_charts.CHARTS))
def test_every_legend_is_clear_of_the_bars_and_inside_the_picture(name: str) -> None:
    plt, figure = sari_charts.figure_of(name, DOCS)
    try:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        picture = figure.bbox
        legends = 0
        for axes in figure.axes:
            legend = axes.get_legend()
            if legend is None:
                continue
            legends += 1
            box = legend.get_window_extent(renderer)
            covered = [other for other in _boxes(axes, renderer) if box.overlaps(other)]
            assert not covered, f"{name}: the legend covers {len(covered)} bars or points"
            assert picture.x0 <= box.x0 and box.x1 <= picture.x1 + 1, f"{name}: legend cut off"
            assert picture.y0 <= box.y0 and box.y1 <= picture.y1 + 1, f"{name}: legend cut off"
        assert legends
    finally:
        plt.close(figure)


@pytest.mark.parametrize("name", sorted(sari_charts.CHARTS))
def test_every_figure_a_chart_title_states_is_in_the_table_beside_it(name: str) -> None:
    plt, figure = sari_charts.figure_of(name, DOCS)
    try:
        titles = " ".join(axes.get_title() for axes in figure.axes)
    finally:
        plt.close(figure)
    table = "\n".join(sari_charts.CHARTS[name].table(sari_charts.data_of(name, DOCS)))
    # the figures a title states (not the digits of a name: MRR@10, p50)
    for figure_text in re.findall(r"(?<![\w@])\d[\d,]*(?:\.\d+)?x?", titles):
        assert figure_text in table, (name, figure_text, table)
