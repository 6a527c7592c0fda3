"""Search quality: does the default ``search`` call find what an agent asks for?

Queries an agent types (concepts in words, identifiers, code fragments) over pinned sdists
from PyPI, each with its answers written down before the bench was first run on them
(``bench/data/search_quality*.json``: a file, and where apt the definition). Each sdist is
fetched by pip into a cache folder outside the repository on first use and unpacked there.

Arms, in the same run, over the same unpacked trees:

* **sari**: ``search {"query": ...}`` with no ``kind``, through the kernel with the default
  policies, as a client calls it; ranked by the order of its matches;
* **sari kind=text**: the same call naming ``kind: "text"``, a plain literal search;
* **bm25**: textbook BM25 over the word index's own units with the index's tokenisation
  and no query understanding (``search_quality_bm25.py``);
* **rg words**: ripgrep (``rg -c -i -F WORD``, its defaults) once per word of the query
  (words of three letters or more, common English words left out), files ranked by BM25
  over the counts (``search_quality_rg.py``);
* **rg best word (oracle)**: files ranked by the count of one word alone, the word that
  ranks an answer highest for that query, chosen with the answer known: the upper bound
  of a one-word grep, not something an agent can type.

Scores per kind of query: MRR@10, hit@1 and hit@5 at the file level (a result in an
answer file; the first ten distinct files are looked at), and for Sari and BM25 also at
the definition level (a hit inside an answer definition, or ``in`` it). "prose first"
counts concept queries whose first ten files put a file that is not source code (docs,
a licence, a locale file) above the first source file. Latency is the median of Sari's
concept calls on a warm index (every query asked once before timing), beside the median
of one ripgrep call (the query's first word) on the same tree.

Each set named is measured and reported on its own, with its role: **tuning** (its
failures were looked at while choosing the ranking), **validation** (run to keep or drop
changes, its failures not studied) or **held-out** (written before the ranking it judges
and never looked at: its first run is the held-out figure). Targets, printed as PASS/FAIL
per set (they are the goal on held-out sets): concept MRR@10 >= 0.90 by file and >= 0.75
by definition, >= 0.10 above the oracle single word and above BM25; identifier MRR@10 >=
0.95; no concept query with prose first; concept p50 no slower than one ripgrep call.

    python bench/search_quality.py [--set NAME|NAME,NAME|all] [--cache ~/.cache/sari-bench]
                                   [--verbose] [--smoke] [--json PATH]

``--set`` names (see ``search_quality_sets.py`` for each one's libraries and role):
tuning (the default), heldout, fresh, fresh2, fresh3, fresh4, unseen, unseen2, unseen3,
unseen4, unseen5, unseen6, unseen7, unseen8, unseen9, unseen10, unseen11; several joined by
commas, or ``all``.

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
from search_quality_bm25 import PlainBM25  # noqa: E402
from search_quality_rg import rg_binary, rg_ranks  # noqa: E402
from search_quality_sets import (  # noqa: E402
    QUERY_SETS,
    Answer,
    Query,
    corpus_root,
    load_set,
    set_names,
    set_role,
)

CUTOFF = 10
TARGET_CONCEPT_FILE = 0.90
TARGET_CONCEPT_DEFINITION = 0.75
TARGET_OVER_ORACLE = 0.10
TARGET_IDENTIFIER_MRR = 0.95
ORACLE = "rg best word (oracle)"
# the same call with kind "text": a plain literal search, as the default was before
LITERAL_ARM = "sari kind=text"
ARMS = ("sari", "sari definition", LITERAL_ARM, "bm25", "bm25 definition", "rg words", ORACLE)
# Files whose text is source code; any other file (docs, licences, locale data) is prose
# for "prose first".
SOURCE_SUFFIXES = frozenset((
    ".py", ".pyi", ".pyx", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java",
    ".kt", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".sh"))


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


PARSE = {"mode": "eager"}  # --parse


def open_sari(root: Path) -> tuple[Any, Any]:
    """A kernel over ``root`` with the default policies, and its workspace, the index built
    (``--parse on-demand``: built as a large tree's first build is when it parses on
    demand, in two phases, its word chunks cut along the definition lines)."""
    from sari_aggregation import AggregationPlugin
    from sari_budget import BudgetPlugin
    from sari_core import Kernel
    from sari_core.engine import Workspace
    from sari_refgate import RefgatePlugin
    from sari_relevance import RelevancePlugin

    policies = [BudgetPlugin(), RelevancePlugin(), AggregationPlugin(), RefgatePlugin()]
    workspace = Workspace([root], watch=False, parse=PARSE["mode"])
    if PARSE["mode"] == "on-demand":
        workspace.indexer.two_phase_files = 0  # however small the tree
    workspace.ensure_index(progress=False)
    return Kernel(workspace, plugins=policies, load_entry_points=False,
                  analytics_sinks=[]), workspace


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


# --- the run ---------------------------------------------------------------------------


def is_source(path: str) -> bool:
    return Path(path).suffix.lower() in SOURCE_SUFFIXES


def prose_first(paths: Sequence[str]) -> bool:
    """Whether the first file is not source code (docs, a licence): for a question about
    code, prose came before any code."""
    seen = list(dict.fromkeys(paths))[:CUTOFF]
    return bool(seen) and not is_source(seen[0])


@dataclass
class Figures:
    ranks: dict[str, Ranks] = field(default_factory=lambda: {arm: Ranks() for arm in ARMS})
    latency_ms: dict[str, list[float]] = field(default_factory=dict)
    rg_one_call_ms: list[float] = field(default_factory=list)
    rg_words_ms: list[float] = field(default_factory=list)
    answer_tokens: dict[str, list[int]] = field(default_factory=dict)
    bare_tokens: dict[str, list[int]] = field(default_factory=dict)
    empty: dict[str, int] = field(default_factory=dict)
    prose_first: dict[str, list[str]] = field(default_factory=dict)


def measure(corpora: dict[str, Path], queries: Sequence[Query], verbose: bool,
            repeat: int = 3) -> Figures:
    figures = Figures()
    rg = rg_binary()
    if rg is None:
        print("ripgrep (rg) not found: the ripgrep arms score nothing (pip install ripgrep)")
    for name, root in corpora.items():
        mine = [query for query in queries if query.corpus == name]
        if not mine:
            continue
        kernel, workspace = open_sari(root)
        bm25 = PlainBM25(workspace)
        try:
            for query in mine:  # warm: every query once before timing
                sari_hits(kernel, query.query)
            for query in mine:
                timings = []
                for _ in range(repeat):
                    started = time.perf_counter()
                    hits, size = sari_hits(kernel, query.query)
                    timings.append((time.perf_counter() - started) * 1000)
                figures.latency_ms.setdefault(query.kind, []).append(statistics.median(timings))
                figures.answer_tokens.setdefault(query.kind, []).append(size)
                figures.bare_tokens.setdefault(query.kind, []).append(
                    shown_tokens(kernel, query.query))
                if not hits:
                    figures.empty[query.kind] = figures.empty.get(query.kind, 0) + 1
                paths = [hit[0] for hit in hits]
                sari = file_rank(paths, query.answers)
                literal = file_rank([hit[0] for hit in sari_hits(kernel, query.query,
                                                                 kind="text")[0]],
                                    query.answers)
                defined = definition_rank(hits, root, query.answers)
                plain = bm25.hits(query.query)
                plain_file = file_rank([hit[0] for hit in plain], query.answers)
                plain_defined = definition_rank(plain, root, query.answers)
                started = time.perf_counter()
                words, best, one_call = rg_ranks(rg, root, query.query, functools.partial(
                    file_rank, answers=query.answers)) if rg else (None, None, 0.0)
                figures.rg_words_ms.append((time.perf_counter() - started) * 1000)
                if query.kind == "concept":
                    figures.rg_one_call_ms.append(one_call)
                    for arm, arm_paths in (("sari", paths),
                                           ("bm25", [hit[0] for hit in plain])):
                        if prose_first(arm_paths):
                            figures.prose_first.setdefault(arm, []).append(query.query)
                for arm, rank in (("sari", sari), ("sari definition", defined),
                                  (LITERAL_ARM, literal), ("bm25", plain_file),
                                  ("bm25 definition", plain_defined),
                                  ("rg words", words), (ORACLE, best)):
                    figures.ranks[arm].add(query.kind, rank)
                if verbose:
                    print(f"  {name:<10}{query.kind:<11}{_cell(sari):>5}{_cell(defined):>5}"
                          f"{_cell(plain_file):>5}{_cell(plain_defined):>5}{_cell(words):>5}"
                          f"{_cell(best):>5}  {query.query}")
        finally:
            bm25.close()
            kernel.close()
    return figures


def _cell(rank: int | None) -> str:
    return str(rank) if rank else "-"


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def report(figures: Figures, kinds: Sequence[str]) -> list[tuple[str, bool]]:
    print(f"\n{'kind':<11}{'arm':<23}{'MRR@10':>8}{'hit@1':>8}{'hit@5':>8}")
    for kind in kinds:
        for arm in ARMS:
            ranks = figures.ranks[arm]
            count = len(ranks.by_kind.get(kind, []))
            print(f"{kind:<11}{arm:<23}{ranks.mrr(kind):>8.3f}{ranks.hit(kind, 1):>8.3f}"
                  f"{ranks.hit(kind, 5):>8.3f}  (n={count})")
    for kind in kinds:
        sizes = figures.answer_tokens.get(kind, [])
        if sizes:
            bare = statistics.median(figures.bare_tokens.get(kind, [0]))
            print(f"sari answers, {kind}: median {statistics.median(sizes):.0f} tokens as "
                  f"shown to the model ({bare:.0f} without the definitions shown with the "
                  f"first hits), {figures.empty.get(kind, 0)} of {len(sizes)} with no match")
    every = [ms for values in figures.latency_ms.values() for ms in values]
    concept_p50 = _median(figures.latency_ms.get("concept", []))
    one_call = _median(figures.rg_one_call_ms)
    print(f"sari p50 latency warm: concept {concept_p50:.1f} ms, every query "
          f"{_median(every):.1f} ms (slowest {max(every, default=0.0):.0f} ms); in the same "
          f"run one rg call took {one_call:.1f} ms (p50), ripgrep's words arm "
          f"{_median(figures.rg_words_ms):.1f} ms per query (one rg per word)")
    for arm in ("sari", "bm25"):
        found = figures.prose_first.get(arm, [])
        print(f"prose first ({arm}): {len(found)} of "
              f"{len(figures.ranks['sari'].by_kind.get('concept', []))} concept queries"
              + "".join(f"\n    {query}" for query in found))
    sari = figures.ranks["sari"].mrr("concept")
    defined = figures.ranks["sari definition"].mrr("concept")
    plain = figures.ranks["bm25"].mrr("concept")
    plain_defined = figures.ranks["bm25 definition"].mrr("concept")
    oracle = figures.ranks[ORACLE].mrr("concept")
    print(f"concept MRR@10 by file: sari {sari:.3f}, bm25 {plain:.3f}, rg words "
          f"{figures.ranks['rg words'].mrr('concept'):.3f}, oracle single word {oracle:.3f}; "
          f"by definition: sari {defined:.3f}, bm25 {plain_defined:.3f}")
    checks = [
        (f"concept MRR@10 by file >= {TARGET_CONCEPT_FILE}", sari >= TARGET_CONCEPT_FILE),
        (f"concept MRR@10 by definition >= {TARGET_CONCEPT_DEFINITION}",
         defined >= TARGET_CONCEPT_DEFINITION),
        (f"concept MRR@10 by file >= the oracle single word's + {TARGET_OVER_ORACLE}",
         sari >= oracle + TARGET_OVER_ORACLE),
        ("concept MRR@10 above BM25's, by file and by definition",
         sari > plain and defined > plain_defined),
        ("no concept query with prose first", not figures.prose_first.get("sari")),
        ("concept p50 warm <= one rg call's", concept_p50 <= one_call),
    ]
    if "identifier" in kinds:
        identifier = figures.ranks["sari"].mrr("identifier")
        checks.append((f"identifier MRR@10 >= {TARGET_IDENTIFIER_MRR}",
                       identifier >= TARGET_IDENTIFIER_MRR))
    return checks


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
    """What ``--json`` writes for one set: each arm's scores per kind of query, Sari's
    concept p50 and one rg call's, and the concept queries with prose first."""
    return {"kinds": {kind: {arm: {"mrr10": ranks.mrr(kind), "hit1": ranks.hit(kind, 1),
                                   "hit5": ranks.hit(kind, 5),
                                   "queries": len(ranks.by_kind.get(kind, []))}
                             for arm, ranks in figures.ranks.items()} for kind in kinds},
            "p50_ms": _median(figures.latency_ms.get("concept", [])),
            "rg_one_call_p50_ms": _median(figures.rg_one_call_ms),
            "prose_first": figures.prose_first}


def run(corpora: dict[str, Path], queries: Sequence[Query], verbose: bool,
        label: str = "") -> tuple[Figures, list[str], list[tuple[str, bool]]]:
    kinds = list(dict.fromkeys(query.kind for query in queries))
    if label:
        print(f"\n=== {label}")
    if verbose:
        print(f"  {'corpus':<10}{'kind':<11}{'sari':>5}{'def':>5}{'bm25':>5}{'bdef':>5}"
              f"{'rgw':>5}{'rg1':>5}  query")
    figures = measure(corpora, queries, verbose)
    checks = report(figures, kinds)
    print("targets:")
    for text, ok in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {text}")
    return figures, kinds, checks


def summary(rows: Sequence[tuple[str, str, Figures]]) -> None:
    """One line per set: its role and each arm's concept MRR@10, identifiers' beside."""
    print(f"\n{'set':<9}{'role':<11}{'sari':>7}{'s.def':>7}{'bm25':>7}{'b.def':>7}"
          f"{'rgw':>7}{'oracle':>7}{'ident':>7}  (concept MRR@10 by file, by definition)")
    for name, role, figures in rows:
        ranks = figures.ranks
        print(f"{name:<9}{role:<11}" + "".join(
            f"{ranks[arm].mrr('concept'):>7.3f}" for arm in
            ("sari", "sari definition", "bm25", "bm25 definition", "rg words", ORACLE))
            + f"{ranks['sari'].mrr('identifier'):>7.3f}")


def main(argv: Sequence[str] | None = None, printer: Callable[..., None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "SARI_BENCH_CACHE", Path.home() / ".cache" / "sari-bench")))
    parser.add_argument("--set", default="tuning", type=lambda value: (set_names(value), value)[1],
                        help=f"the query set: {', '.join(QUERY_SETS)} (names joined by commas "
                             "ask for several, each reported on its own) or all; tuning is "
                             "the default")
    parser.add_argument("--verbose", action="store_true", help="print every query's ranks")
    parser.add_argument("--parse", choices=("eager", "on-demand"), default="eager",
                        help="on-demand: Sari's index built as a first build parsing on "
                             "demand builds it (word chunks along the definition lines)")
    parser.add_argument("--smoke", action="store_true", help="a tiny generated tree (CI)")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="also write the scores as JSON to PATH (several sets: one "
                             "entry per set; the docs' chart reads one set's, "
                             "docs/data/search_quality.json)")
    args = parser.parse_args(argv)
    PARSE["mode"] = args.parse
    out: dict[str, Any] = {}
    failed = False
    with scratch_folders():
        if args.smoke:
            with tempfile.TemporaryDirectory(prefix="sari-quality-") as temp:
                root = Path(temp).resolve()
                for name, text in SMOKE_FILES.items():
                    (root / name).parent.mkdir(parents=True, exist_ok=True)
                    (root / name).write_text(text, encoding="utf-8")
                figures, kinds, _ = run({"smoke": root}, SMOKE_QUERIES, args.verbose)
                _write(args.json, figures_json(figures, kinds))
                return 0  # the smoke run checks the bench works, not the targets
        rows = []
        for name in set_names(args.set):
            requirements, queries = load_set(name)
            corpora = {corpus: corpus_root(requirement, args.cache.expanduser())
                       for corpus, requirement in requirements.items()}
            for corpus, root in corpora.items():
                printer(f"{corpus}: {requirements[corpus]} at {root}")
            role = set_role(name)
            figures, kinds, checks = run(corpora, queries, args.verbose, f"{name} ({role})")
            failed = failed or not all(ok for _, ok in checks)
            rows.append((name, role, figures))
            out[name] = {"role": role, **figures_json(figures, kinds)}
        summary(rows)
        # one set: its figures alone (the docs' chart reads them); several: keyed by set
        _write(args.json, next(iter(out.values())) if len(out) == 1 else out)
    return 1 if failed else 0


def _write(path: Path | None, data: dict[str, Any]) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
