"""Search quality: does the default ``search`` call find what an agent asks for?

Queries an agent types (concepts in words, identifiers, code fragments) over pinned sdists
from PyPI, each with its answers written down before the bench was first run
(``bench/data/search_quality.json``: a file, and where apt the definition). Each sdist is
fetched by pip into a cache folder outside the repository on first use and unpacked there.

Arms, in the same run, over the same unpacked trees:

* **sari**: ``search {"query": ...}`` with no ``kind``, through the kernel with the default
  policies, as a client calls it; ranked by the order of its matches;
* **sari kind=text**: the same call naming ``kind: "text"``, a plain literal search (what
  the default call was before it understood queries);
* **rg words**: ripgrep (``rg -c -i -F WORD``, its defaults) once per word of the query
  (words of three letters or more, common English words left out), files ranked by the
  sum of the counts;
* **rg best word**: the same, ranked by the count of one word alone, the word that ranks
  an answer highest for that query (an oracle: no agent knows which word is best).

Scores per kind of query: MRR@10, hit@1 and hit@5 at the file level (a result in an
answer file; the first ten distinct files are looked at), and for Sari also at the
definition level (a hit inside an answer definition, or ``in`` it). Latency is the median
of Sari's calls on a warm index (every query asked once before timing). Targets are
printed as PASS/FAIL: concept MRR@10 >= 0.6 and >= 1.5x ripgrep's (rg words: what an agent
can type; the oracle arm is printed beside it);
identifier MRR@10 >= 0.95; p50 <= 20 ms warm.

    python bench/search_quality.py [--set tuning|heldout|fresh|fresh2|fresh3|fresh4|NAME,NAME|all] [--cache ~/.cache/sari-bench]
                                   [--verbose] [--smoke] [--json PATH]

``--set`` names the query set: ``tuning`` (requests, click, jinja2: the set the ranking was
tuned on; the default), ``heldout`` (werkzeug, marshmallow: not looked at while tuning at
first), ``fresh`` (starlette, sqlparse: written when the first two had been looked at many
times), ``fresh2`` (arrow: written after the ranking it judges was chosen), ``fresh3`` (cattrs: written,
with the definition each answer is, before the definition-level ranking it judges was
chosen), ``fresh4`` (isodate, Markdown: written, with their definitions, before the word index's
licence-header and glued-name changes were tuned), several joined by commas (``tuning,heldout``) or ``all``.

``--smoke`` runs a tiny generated tree with three queries (what CI runs): it checks the
bench works, not the targets.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scratch import scratch_folders  # noqa: E402
from search_quality_rg import rg_binary, rg_ranks  # noqa: E402
from search_quality_sets import (  # noqa: E402
    QUERY_SETS,
    Answer,
    Query,
    corpus_root,
    load_set,
    set_names,
)

CUTOFF = 10
TARGET_CONCEPT_MRR = 0.6
TARGET_CONCEPT_OVER_RG = 1.5
TARGET_IDENTIFIER_MRR = 0.95
TARGET_P50_MS = 20.0
ARMS = ("sari", "rg words", "rg best word")
# the same call with kind "text": a plain literal search, as the default was before
LITERAL_ARM = "sari kind=text"


@dataclass
class Ranks:
    """1-based rank of the first right result per query (None: not in the first ten)."""

    by_kind: dict[str, list[int | None]] = field(default_factory=dict)

    def add(self, kind: str, rank: int | None) -> None:
        self.by_kind.setdefault(kind, []).append(rank)

    def mrr(self, kind: str) -> float:
        ranks = self.by_kind.get(kind, [])
        return sum(1 / rank for rank in ranks if rank) / len(ranks) if ranks else 0.0

    def hit(self, kind: str, at: int) -> float:
        ranks = self.by_kind.get(kind, [])
        return sum(1 for rank in ranks if rank and rank <= at) / len(ranks) if ranks else 0.0


# --- answers ----------------------------------------------------------------------------


def definition_ranges(root: Path, answer: Answer) -> list[range]:
    """The lines of every definition of ``answer.symbol`` (overloads too), decorators in."""
    if answer.symbol is None:
        return []
    tree = ast.parse((root / answer.path).read_text(encoding="utf-8"))
    level: list[ast.stmt] = list(tree.body)
    found: list[ast.stmt] = []
    for part in answer.symbol.split("."):
        found = [node for node in level if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part]
        if not found:
            raise LookupError(f"{answer.symbol} is not defined in {answer.path}")
        level = [child for node in found for child in getattr(node, "body", [])]
    out = []
    for node in found:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        out.append(range(first, (node.end_lineno or node.lineno) + 1))
    return out


def file_rank(paths: Sequence[str], answers: Iterable[Answer]) -> int | None:
    """Rank of the first answer file among the distinct files of ``paths``."""
    wanted = {answer.path for answer in answers}
    seen: list[str] = []
    for path in paths:
        if path not in seen:
            seen.append(path)
            if path in wanted:
                return len(seen) if len(seen) <= CUTOFF else None
        if len(seen) >= CUTOFF:
            break
    return None


def definition_rank(hits: Sequence[tuple[str, int | None, str | None]], root: Path,
                    answers: Sequence[Answer]) -> int | None:
    """Rank of the first hit inside (or naming) an answer definition, among the first ten."""
    ranges = {answer: definition_ranges(root, answer) for answer in answers}
    for rank, (path, line, symbol) in enumerate(hits[:CUTOFF], 1):
        for answer, spans in ranges.items():
            if path != answer.path:
                continue
            if answer.symbol is None or (line is not None and any(line in s for s in spans)) \
                    or (symbol is not None and symbol.endswith(answer.symbol)):
                return rank
    return None


# --- the arms ---------------------------------------------------------------------------


def open_sari(root: Path) -> Any:
    """A kernel over ``root`` with the default policies, its index built."""
    from sari_aggregation import AggregationPlugin
    from sari_budget import BudgetPlugin
    from sari_core import Kernel
    from sari_core.engine import Workspace
    from sari_refgate import RefgatePlugin
    from sari_relevance import RelevancePlugin

    policies = [BudgetPlugin(), RelevancePlugin(), AggregationPlugin(), RefgatePlugin()]
    workspace = Workspace([root], watch=False)
    workspace.ensure_index(progress=False)
    return Kernel(workspace, plugins=policies, load_entry_points=False,
                  analytics_sinks=[])


def sari_hits(kernel: Any, query: str, **args: Any
              ) -> tuple[list[tuple[str, int | None, str | None]], int]:
    """(path, line, enclosing definition) per match, and the size in tokens of the text
    the model is shown (the rendered answer)."""
    from sari_core.costmodel import tokens
    from sari_core.rendering import render

    body = kernel.execute_search({"query": query, **args})
    hits = [(match["path"], match.get("line"), match.get("scope") or match.get("symbol"))
            for match in body.get("matches", [])]
    return hits, tokens(render(body))


def shown_tokens(kernel: Any, query: str) -> int:
    """Tokens of the rendered answer without the definitions shown with its first hits."""
    from sari_core.costmodel import tokens
    from sari_core.rendering import render

    body = kernel.execute_search({"query": query})
    for match in body.get("matches", []):
        match.pop("context", None)
    return tokens(render(body))


# --- the run ----------------------------------------------------------------------------


@dataclass
class Figures:
    ranks: dict[str, Ranks] = field(default_factory=lambda: {arm: Ranks() for arm in
                                                             (*ARMS, "sari definition",
                                                              LITERAL_ARM)})
    latency_ms: list[float] = field(default_factory=list)
    rg_latency_ms: list[float] = field(default_factory=list)
    answer_tokens: dict[str, list[int]] = field(default_factory=dict)
    bare_tokens: dict[str, list[int]] = field(default_factory=dict)
    empty: dict[str, int] = field(default_factory=dict)


def measure(corpora: dict[str, Path], queries: Sequence[Query], verbose: bool,
            repeat: int = 3) -> Figures:
    figures = Figures()
    rg = rg_binary()
    if rg is None:
        print("ripgrep (rg) not found: the ripgrep arms score nothing (pip install ripgrep)")
    for name, root in corpora.items():
        mine = [query for query in queries if query.corpus == name]
        kernel = open_sari(root)
        try:
            for query in mine:  # warm: every query once before timing
                sari_hits(kernel, query.query)
            for query in mine:
                timings = []
                for _ in range(repeat):
                    started = time.perf_counter()
                    hits, size = sari_hits(kernel, query.query)
                    timings.append((time.perf_counter() - started) * 1000)
                figures.latency_ms.append(statistics.median(timings))
                figures.answer_tokens.setdefault(query.kind, []).append(size)
                figures.bare_tokens.setdefault(query.kind, []).append(
                    shown_tokens(kernel, query.query))
                if not hits:
                    figures.empty[query.kind] = figures.empty.get(query.kind, 0) + 1
                sari = file_rank([hit[0] for hit in hits], query.answers)
                literal = file_rank([hit[0] for hit in sari_hits(kernel, query.query,
                                                                 kind="text")[0]],
                                    query.answers)
                defined = definition_rank(hits, root, query.answers)
                started = time.perf_counter()
                words, best = rg_ranks(rg, root, query.query, functools.partial(
                    file_rank, answers=query.answers)) if rg else (None, None)
                figures.rg_latency_ms.append((time.perf_counter() - started) * 1000)
                for arm, rank in (("sari", sari), ("sari definition", defined),
                                  ("rg words", words), ("rg best word", best),
                                  (LITERAL_ARM, literal)):
                    figures.ranks[arm].add(query.kind, rank)
                if verbose:
                    print(f"  {name:<9}{query.kind:<11}{_cell(sari):>5}{_cell(defined):>5}"
                          f"{_cell(words):>5}{_cell(best):>5}  {query.query}")
        finally:
            kernel.close()
    return figures


def _cell(rank: int | None) -> str:
    return str(rank) if rank else "-"


def report(figures: Figures, kinds: Sequence[str]) -> list[tuple[str, bool]]:
    print(f"\n{'kind':<11}{'arm':<17}{'MRR@10':>8}{'hit@1':>8}{'hit@5':>8}")
    for kind in kinds:
        for arm in ("sari", "sari definition", LITERAL_ARM, "rg words", "rg best word"):
            ranks = figures.ranks[arm]
            count = len(ranks.by_kind.get(kind, []))
            print(f"{kind:<11}{arm:<17}{ranks.mrr(kind):>8.3f}{ranks.hit(kind, 1):>8.3f}"
                  f"{ranks.hit(kind, 5):>8.3f}  (n={count})")
    for kind in kinds:
        sizes = figures.answer_tokens.get(kind, [])
        if sizes:
            bare = statistics.median(figures.bare_tokens.get(kind, [0]))
            print(f"sari answers, {kind}: median {statistics.median(sizes):.0f} tokens as "
                  f"shown to the model ({bare:.0f} without the definitions shown with the "
                  f"first hits), {figures.empty.get(kind, 0)} of {len(sizes)} with no match")
    p50 = statistics.median(figures.latency_ms) if figures.latency_ms else 0.0
    slowest = max(figures.latency_ms, default=0.0)
    rg_p50 = statistics.median(figures.rg_latency_ms) if figures.rg_latency_ms else 0.0
    print(f"sari p50 latency warm: {p50:.1f} ms (slowest {slowest:.0f} ms); in the same run "
          f"ripgrep's words arm took {rg_p50:.1f} ms per query (one rg per word)")
    sari = figures.ranks["sari"]
    peer = figures.ranks["rg words"].mrr("concept")
    oracle = figures.ranks["rg best word"].mrr("concept")
    ratio = sari.mrr("concept") / peer if peer else float("inf")
    print(f"concept MRR@10 sari/rg words: {ratio:.2f}x; sari/rg best word (an oracle): "
          f"{sari.mrr('concept') / oracle if oracle else float('inf'):.2f}x")
    return [
        (f"concept MRR@10 >= {TARGET_CONCEPT_MRR}", sari.mrr("concept") >= TARGET_CONCEPT_MRR),
        (f"concept MRR@10 >= {TARGET_CONCEPT_OVER_RG}x rg words'", ratio >= TARGET_CONCEPT_OVER_RG),
        (f"identifier MRR@10 >= {TARGET_IDENTIFIER_MRR}",
         sari.mrr("identifier") >= TARGET_IDENTIFIER_MRR),
        (f"p50 <= {TARGET_P50_MS:.0f} ms warm", p50 <= TARGET_P50_MS),
    ]


SMOKE_FILES = {
    "CHANGES.rst": "Redirects are followed now.\nRedirect handling fixed.\n",
    "pkg/session.py": ('class Session:\n    def follow_redirects(self, response):\n'
                       '        """Follow the redirects of a response."""\n'
                       '        return response.next\n'),
    "pkg/env.py": ('import os\n\n\ndef value_from_envvar(name):\n'
                   '    return os.environ.get(name)\n'),
}
SMOKE_QUERIES = (
    Query("smoke", "concept", "where are redirects followed",
          (Answer("pkg/session.py", "Session.follow_redirects"),)),
    Query("smoke", "concept", "read a value from an environment variable",
          (Answer("pkg/env.py", "value_from_envvar"),)),
    Query("smoke", "identifier", "value_from_envvar", (Answer("pkg/env.py", "value_from_envvar"),)),
)


def figures_json(figures: Figures, kinds: Sequence[str]) -> dict[str, Any]:
    """What ``--json`` writes: each arm's scores per kind of query, and Sari's p50."""
    return {"kinds": {kind: {arm: {"mrr10": ranks.mrr(kind), "hit1": ranks.hit(kind, 1),
                                   "hit5": ranks.hit(kind, 5),
                                   "queries": len(ranks.by_kind.get(kind, []))}
                             for arm, ranks in figures.ranks.items()} for kind in kinds},
            "p50_ms": statistics.median(figures.latency_ms) if figures.latency_ms else 0.0}


def run(corpora: dict[str, Path], queries: Sequence[Query], verbose: bool,
        json_path: Path | None = None) -> int:
    kinds = list(dict.fromkeys(query.kind for query in queries))
    if verbose:
        print(f"  {'corpus':<9}{'kind':<11}{'sari':>5}{'def':>5}{'rgw':>5}{'rg1':>5}  query")
    figures = measure(corpora, queries, verbose)
    checks = report(figures, kinds)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(figures_json(figures, kinds), indent=1) + "\n",
                             encoding="utf-8")
    print("\ntargets:")
    for label, ok in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {label}")
    return 0 if all(ok for _, ok in checks) else 1


def main(argv: Sequence[str] | None = None, printer: Callable[..., None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "SARI_BENCH_CACHE", Path.home() / ".cache" / "sari-bench")))
    parser.add_argument("--set", default="tuning", type=lambda value: (set_names(value), value)[1],
                        help=f"the query set: {', '.join(QUERY_SETS)} (names joined by commas "
                             "ask for several) or all; tuning is the default")
    parser.add_argument("--verbose", action="store_true", help="print every query's ranks")
    parser.add_argument("--smoke", action="store_true", help="a tiny generated tree (CI)")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="also write the scores as JSON to PATH (the docs' chart reads "
                             "docs/data/search_quality.json)")
    args = parser.parse_args(argv)
    with scratch_folders():
        if args.smoke:
            with tempfile.TemporaryDirectory(prefix="sari-quality-") as temp:
                root = Path(temp).resolve()
                for name, text in SMOKE_FILES.items():
                    (root / name).parent.mkdir(parents=True, exist_ok=True)
                    (root / name).write_text(text, encoding="utf-8")
                run({"smoke": root}, SMOKE_QUERIES, args.verbose, args.json)
                return 0  # the smoke run checks the bench works, not the targets
        requirements, queries = load_set(args.set)
        corpora = {name: corpus_root(requirement, args.cache.expanduser())
                   for name, requirement in requirements.items()}
        for name, root in corpora.items():
            printer(f"{name}: {requirements[name]} at {root}")
        return run(corpora, queries, args.verbose, args.json)


if __name__ == "__main__":
    sys.exit(main())
