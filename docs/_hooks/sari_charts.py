"""MkDocs hook: charts drawn at build time from the JSON the benches write into ``docs/data/``.

A page asks for a chart with ``<!-- sari:chart NAME -->``; the hook draws ``NAME`` with
matplotlib from its data file and puts the SVG beside the page (``charts/NAME.svg`` in the
site), with a table of the same figures under it, written from the same file, so the
chart's title and the table beside it cannot disagree. Nothing is drawn by hand and no
image is committed: re-running a bench with ``--json docs/data/FILE`` and rebuilding
updates both. A chart whose data file is missing stops the build and says which command
writes it. Legends sit outside the plotting area, clear of every bar and point.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

MARKER = re.compile(r"<!-- sari:chart (?P<name>[\w-]+) -->")
DATA = "data"
COLOURS = {"whole-file": "#9e9e9e", "careful": "#5b7db1", "core": "#e0a030",
           "policies": "#3a9a5b", "sari": "#3a9a5b", "rg words": "#5b7db1",
           "rg best word (oracle)": "#9e9e9e", "sari definition": "#8fc79f",
           "bm25": "#c77"}


@dataclass(frozen=True)
class Chart:
    data: str  # file under docs/data/
    command: str  # what writes it
    alt: str
    draw: Callable[[Any, dict[str, Any]], Any]
    table: Callable[[dict[str, Any]], list[str]]  # markdown rows of the figures drawn


def _outside_right(axes: Any, **options: Any) -> None:
    """The legend right of the plotting area, where no bar or point can be."""
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, borderaxespad=0,
                **options)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "sari", "font.size": 9, "axes.spines.top": False,
                         "axes.spines.right": False})
    return plt


def draw_agent_cost(plt: Any, data: dict[str, Any]) -> Any:
    arms = ("whole-file", "careful", "core", "policies")
    sessions = data["sessions"]
    figure, (totals, each) = plt.subplots(
        1, 2, figsize=(9, 0.16 * len(sessions) + 1.6), gridspec_kw={"width_ratios": [1, 2]})
    careful = data["total"]["careful"]["cached"]
    ratios = [data["total"][arm]["cached"] / careful for arm in arms]
    bars = totals.barh(arms[::-1], ratios[::-1], color=[COLOURS[a] for a in arms[::-1]])
    totals.bar_label(bars, labels=[f"{r:.2f}x" for r in ratios[::-1]], padding=2)
    totals.axvline(1.0, color="#333", linewidth=0.8)
    totals.set_title("all sessions: cached cost\nover the careful agent's")
    totals.set_xlim(0, max(ratios) * 1.25)
    names = [row["session"] for row in sessions][::-1]
    for arm in ("whole-file", "core", "policies"):
        values = [row[arm]["cached"] / row["careful"]["cached"] for row in sessions][::-1]
        each.scatter(values, names, s=14, color=COLOURS[arm], label=arm, zorder=3)
    each.axvline(1.0, color=COLOURS["careful"], linewidth=1, label="careful = 1")
    each.axvline(1.05, color="#c44", linewidth=0.8, linestyle=":", label="+5%")
    each.set_title("per session: cached cost over the careful agent's")
    each.tick_params(axis="y", labelsize=6.5)
    each.grid(axis="x", color="#ddd", zorder=0)
    _outside_right(each)
    return figure


def table_agent_cost(data: dict[str, Any]) -> list[str]:
    total = data["total"]
    rows = ["| arm | cached cost / careful agent's | / whole-file agent's | turns |",
            "|---|---|---|---|"]
    for arm in ("whole-file", "careful", "core", "policies"):
        cached = total[arm]["cached"]
        rows.append(f"| {arm} | {cached / total['careful']['cached']:.2f}x | "
                    f"{cached / total['whole-file']['cached']:.2f}x | {total[arm]['turns']} |")
    return rows


SEARCH_ARMS = ("sari", "bm25", "rg words", "rg best word (oracle)")


def draw_search_quality(plt: Any, data: dict[str, Any]) -> Any:
    kinds = list(data["kinds"])
    figure, axes = plt.subplots(figsize=(7.6, 2.8))
    width = 0.8 / len(SEARCH_ARMS)
    for offset, arm in enumerate(SEARCH_ARMS):
        values = [data["kinds"][kind].get(arm, {}).get("mrr10", 0.0) for kind in kinds]
        positions = [k + (offset - (len(SEARCH_ARMS) - 1) / 2) * width for k in range(len(kinds))]
        bars = axes.bar(positions, values, width, color=COLOURS[arm], label=arm)
        axes.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=7, padding=1)
    labels = [f"{kind}\n({data['kinds'][kind]['sari']['queries']} queries)" for kind in kinds]
    axes.set_xticks(range(len(kinds)), labels)
    axes.set_ylim(0, 1.1)
    axes.set_ylabel("MRR@10 (file level)")
    axes.set_title(f"Tuning set: MRR@10 per kind of query, Sari's default search, BM25 and "
                   f"ripgrep\n(Sari p50 {data['p50_ms']:.1f} ms warm)")
    _outside_right(axes)
    return figure


def table_search_quality(data: dict[str, Any]) -> list[str]:
    rows = ["| kind (tuning set) | queries | " + " | ".join(SEARCH_ARMS) + " |",
            "|---|---|" + "---|" * len(SEARCH_ARMS)]
    for kind, arms in data["kinds"].items():
        values = " | ".join(f"{arms.get(arm, {}).get('mrr10', 0.0):.2f}" for arm in SEARCH_ARMS)
        rows.append(f"| {kind} | {arms['sari']['queries']} | {values} |")
    rows.append(f"| Sari p50, warm | | {data['p50_ms']:.1f} ms |" + " |" * (len(SEARCH_ARMS) - 1))
    return rows


CACHE_LAYOUTS = ("recency", "recency/file", "adaptive", "gated", "ripple", "fixed", "bound")


def _cache_rows(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(f"{set_name.split()[0]}: {repo.split('/')[-1]}", figures)
            for set_name, repos in data["sets"].items() for repo, figures in repos.items()]


def draw_cache_sim(plt: Any, data: dict[str, Any]) -> Any:
    rows = _cache_rows(data)
    figure, axes = plt.subplots(figsize=(9, 3.2))
    width = 0.8 / len(CACHE_LAYOUTS)
    palette = ["#b0b0b0", "#8a8a8a", "#3a9a5b", "#5b7db1", "#e0a030", "#c77", "#333"]
    for offset, layout in enumerate(CACHE_LAYOUTS):
        values = [100 * figures[layout]["served"] for _, figures in rows]
        positions = [k + (offset - (len(CACHE_LAYOUTS) - 1) / 2) * width
                     for k in range(len(rows))]
        axes.bar(positions, values, width, color=palette[offset], label=layout)
    axes.set_xticks(range(len(rows)), [name for name, _ in rows], fontsize=7.5)
    axes.set_ylabel("prompt tokens served from cache, %")
    axes.set_title("Prompt-cache tiers: share of the prompt served from cache, per layout\n"
                   "(sari-ripple's policies and the yardsticks; bound: all that was unchanged "
                   "since the last round)")
    _outside_right(axes)
    axes.set_ylim(0, 100)
    return figure


def table_cache_sim(data: dict[str, Any]) -> list[str]:
    rows = ["| served from cache, % | " + " | ".join(CACHE_LAYOUTS) + " |",
            "|---|" + "---|" * len(CACHE_LAYOUTS)]
    for name, figures in _cache_rows(data):
        rows.append(f"| {name} | " + " | ".join(f"{100 * figures[layout]['served']:.1f}"
                                               for layout in CACHE_LAYOUTS) + " |")
    return rows


def _startup_parts(data: dict[str, Any]) -> tuple[list[tuple[str, float]], dict[str, float]]:
    """The phases before the initialize reply (the rest named), and the work after it."""
    phases = data["phases_seconds"]
    before = {name: value for name, value in phases.items() if "after" not in name}
    after = {**{name: value for name, value in phases.items() if "after" in name},
             **data.get("after_initialize_seconds", {})}
    rest = max(0.0, data["initialize_seconds"] - sum(before.values()))
    return [*before.items(), ("interpreter, CLI and handshake", rest)], after


def draw_startup(plt: Any, data: dict[str, Any]) -> Any:
    parts, after = _startup_parts(data)
    figure, axes = plt.subplots(figsize=(8, 2.6))
    palette = ["#9e9e9e", "#3a9a5b", "#e0a030", "#5b7db1", "#c9c9c9"]
    left = 0.0
    for index, (name, seconds) in enumerate(parts):
        axes.barh("sari serve", seconds * 1000, left=left, color=palette[index % len(palette)],
                  label=f"{name} ({seconds * 1000:.0f} ms)")
        left += seconds * 1000
    for name, seconds in after.items():  # work done once the reply is sent
        axes.barh("sari serve", seconds * 1000, left=left, color="#f3d9a4", hatch="//",
                  label=f"{name} ({seconds * 1000:.0f} ms)")
        left += seconds * 1000
    axes.axvline(data["initialize_seconds"] * 1000, color="#333", linewidth=0.8)
    axes.barh("import mcp SDK", data["sdk_import_seconds"] * 1000, color="#9e9e9e")
    axes.set_xlabel("ms from spawn (median of the run's rounds); the line: the initialize reply")
    axes.set_title(f"Start-up to the initialize reply: {data['initialize_seconds'] * 1000:,.0f} "
                   f"ms, {data['initialize_seconds'] / data['sdk_import_seconds']:.2f}x the SDK "
                   f"import alone ({data['sdk_import_seconds'] * 1000:,.0f} ms)")
    axes.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3)
    return figure


def table_startup(data: dict[str, Any]) -> list[str]:
    ratio = data["initialize_seconds"] / data["sdk_import_seconds"]
    rows = ["| this run (median of its rounds) | ms |", "|---|---|",
            f"| SDK import alone | {data['sdk_import_seconds'] * 1000:,.0f} |",
            f"| `sari serve` → initialize reply | {data['initialize_seconds'] * 1000:,.0f} |",
            f"| ratio | {ratio:.2f}x |"]
    parts, after = _startup_parts(data)
    for name, seconds in [*parts, *after.items()]:
        rows.append(f"| {name} | {seconds * 1000:,.0f} |")
    return rows


CHARTS = {
    "agent-cost": Chart("agent_cost.json",
                        "python bench/agent_cost.py --json docs/data/agent_cost.json",
                        "Cached cost of every arm over the careful agent's, in total and per "
                        "session", draw_agent_cost, table_agent_cost),
    "search-quality": Chart("search_quality.json",
                            "python bench/search_quality.py --json docs/data/search_quality.json",
                            "MRR@10 of Sari's default search, BM25 and ripgrep per kind of query",
                            draw_search_quality, table_search_quality),
    "cache-tiers": Chart("cache_sim.json",
                         "python bench/cache_sim.py --json docs/data/cache_sim.json",
                         "Share of prompt tokens served from cache per layout and repository",
                         draw_cache_sim, table_cache_sim),
    "startup": Chart("startup.json", "python bench/startup.py --rounds 9 --json "
                     "docs/data/startup.json", "Start-up phases of sari serve next to the SDK "
                     "import", draw_startup, table_startup),
}


def data_of(name: str, docs_dir: Path) -> dict[str, Any]:
    """Chart ``name``'s data; a missing or unknown data file is an error that says why."""
    chart = CHARTS.get(name)
    if chart is None:
        raise KeyError(f"sari:chart {name!r} is not a chart; known: {', '.join(CHARTS)}")
    source = docs_dir / DATA / chart.data
    if not source.is_file():
        raise FileNotFoundError(f"chart {name!r} needs docs/{DATA}/{chart.data}, which does not "
                                f"exist: write it with `{chart.command}`")
    loaded: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return loaded


def figure_of(name: str, docs_dir: Path) -> tuple[Any, Any]:
    """pyplot and the laid-out figure of chart ``name`` (close it with ``plt.close``)."""
    plt = _pyplot()
    figure = CHARTS[name].draw(plt, data_of(name, docs_dir))
    figure.tight_layout()
    return plt, figure


def render(name: str, docs_dir: Path) -> str:
    """The SVG of chart ``name``."""
    plt, figure = figure_of(name, docs_dir)
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None})
    plt.close(figure)
    return out.getvalue()


def on_files(files: Files, config: Any) -> Files:
    """Draw every chart a page asks for, as a file of the site."""
    docs_dir = Path(config["docs_dir"])
    wanted = sorted({match.group("name") for page in docs_dir.rglob("*.md")
                     for match in MARKER.finditer(page.read_text(encoding="utf-8"))})
    for name in wanted:
        files.append(File.generated(config, f"charts/{name}.svg", content=render(name, docs_dir)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    depth = page.file.src_uri.count("/")

    docs_dir = Path(config["docs_dir"])

    def image(match: re.Match[str]) -> str:
        name = match.group("name")
        chart = CHARTS[name]
        table = "\n".join(chart.table(data_of(name, docs_dir)))
        return (f"![{chart.alt}]({'../' * depth}charts/{name}.svg)\n\n{table}\n\n"
                f"*Drawn from `docs/{DATA}/{chart.data}`, written by `{chart.command}`.*")

    return MARKER.sub(image, markdown)
