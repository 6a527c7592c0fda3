"""Navigation on a real repository: index-only and server-backed answers against basedpyright.

A pinned sdist (``flask==3.0.3`` by default) is fetched by pip into a cache folder outside
the repository (``--cache``; nothing is fetched when it is already there) and unpacked
into a temporary folder; a project's own type-checker settings that limit the server to
some of its files (``include``/``exclude``) are dropped, so the server answers over every
file the index does. Thirty names defined in its package are chosen by a fixed rule
(``get`` and ``run`` when the package defines them, then the most used up to fifteen,
then the rest spread evenly up to thirty); for each, *who references it* and *who calls
it* are answered three ways:

* ground truth: basedpyright itself, asked at every definition of the name the index
  knows (``textDocument/references`` without the declaration,
  ``callHierarchy/incomingCalls``), as (file, line) pairs;
* index-only: ``search kind=references|callers`` from Sari's index (``name-based``);
* server-backed: the same searches answered through sari-lspgate's running server
  (``exact:basedpyright``), the way the plugin answers them: definitions from the index;
  when the server gives no answer within the plugin's budget, the index's answer, as the
  kernel then serves it (``fell back`` counts those questions).

Precision and recall are over (file, line) pairs, summed over the names (by name), and
per symbol: each definition of each name asked as ``path:line`` (what an agent asks
when it means that one definition), index-only and server-backed, against what the
server says at that definition alone (the line of the definition asked about is left
out of the index's answer, as the server's holds no declaration; the other definitions
of the same symbol, an overload's signatures or a property's setter, the server lists,
and so are kept). Latency (limit
50) is the median over the names of: the index; the server-backed first ask of each
question (before anything else asked the server about that name); the server-backed
ask computed again on the warm server (a change seen in between, so no kept answer
serves it); and the same question repeated with nothing changed (the kept answer). The
agent's cost of "who calls X" is costed with ``sari_core.costmodel``: Sari is one
``search kind=callers`` call; grep-and-read is one grep for ``X(`` and one read per file
with hits (60 lines around each hit, to see the enclosing function). Targets are printed
as PASS/FAIL.

    python bench/navigation.py [--sdist flask==3.0.3] [--cache ~/.cache/sari-bench] [--repeat 5]
        [--package NAME] [--misses wrong-and-missed.json] [--names-only]
        [--rescore wrong-and-missed.json] [--kinds references,callers] [--smoke]

``--smoke`` runs the whole bench, server included, on a tiny generated project (what CI
runs: it fails when the bench breaks, whatever the figures). ``--rescore`` scores the index alone against the truth a ``--misses`` run recorded: the
same server answers for the index before and after a change, without the server.
The names of libraries held out from tuning are written down in
``bench/data/navigation_names.json`` before their first run and used from there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SARI_STATE_DIR", tempfile.mkdtemp(prefix="sari-bench-"))

from sari_core.costmodel import session_cost, tokens  # noqa: E402
from sari_core.engine import Workspace  # noqa: E402
from sari_core.kernel import Kernel  # noqa: E402
from sari_core.models import SearchCall  # noqa: E402
from sari_lspgate.lsp_server import LanguageServer  # noqa: E402
from sari_lspgate.navigation import index_definitions  # noqa: E402
from sari_lspgate.runner import ValidationRunner  # noqa: E402
from sari_lspgate.settings import LspGateSettings  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from navigation_corpus import (  # noqa: E402
    choose_names,
    package_folder,
    server_over_every_file,
    smoke_tree,
)
from navigation_truth import TruthCache, ground_truth  # noqa: E402
from sdists import sdist, unpack  # noqa: E402

# The names of the libraries held out from tuning, chosen by the rule below and written
# down before their first run: a later change to the index cannot change their sample.
WRITTEN_DOWN: dict[str, list[str]] = json.loads(
    (Path(__file__).parent / "data" / "navigation_names.json").read_text(encoding="utf-8"))
Pair = tuple[str, int]
KINDS = ("references", "callers")
READ_WINDOW = 60
ALL = 100_000
# per symbol: the answer to path:line, and (what an agent got before) the bare name's
SYMBOL_ARMS = ("index", "server", "index, by name", "server, by name")


def _union(truth: dict[tuple[str, int], dict[str, set[Pair]]]) -> dict[str, set[Pair]]:
    return {kind: set().union(*(mine[kind] for mine in truth.values())) for kind in KINDS}


def _pairs(result: Any, asked: Pair | None = None) -> set[Pair]:
    """(file, line) of each match; ``asked`` (the definition asked about) leaves out that
    definition's own line, as the server's answer (no declaration) does; another
    definition of the same symbol (an overload, a property's setter) the server lists."""
    return {(match.path, int(match.line)) for match in result.matches
            if not (match.kind == "definition" and (match.path, int(match.line)) == asked)}


def _undeclared(pairs: set[Pair], declared: set[Pair]) -> set[Pair]:
    """A name's answer or truth without the lines declaring the name. Asked as ``path:line``
    the asked definition's own line is left out (``_pairs``); asked by name, every definition
    of the name is asked, so each one's line is left out of both sides: a declaration is no
    reference, and whether the server lists a sibling's (an overload's) depends on where it
    was asked."""
    return pairs - declared


def _ms(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    answer = run()
    return (time.perf_counter() - started) * 1000, answer


def _p50_ms(run: Callable[[], Any], repeat: int, before: Callable[[], Any] = lambda: None
            ) -> float:
    times = []
    for _ in range(repeat):
        before()
        times.append(_ms(run)[0])
    return statistics.median(times)


def grep_and_read_cost(root: Path, name: str) -> tuple[int, list[int]]:
    """(calls, result tokens of each) of grepping for ``name(`` and reading around hits."""
    pattern = re.compile(rf"\b{re.escape(name)}\(")
    grep_lines: list[str] = []
    windows: dict[Path, list[tuple[int, int]]] = {}
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        for number, line in enumerate(lines, 1):
            if pattern.search(line):
                grep_lines.append(f"{path.relative_to(root)}:{number}:{line}")
                windows.setdefault(path, []).append(
                    (max(1, number - READ_WINDOW // 2), number + READ_WINDOW // 2))
    results = [tokens("\n".join(grep_lines))]
    for path, spans in windows.items():
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        shown: set[int] = set()
        for first, last in spans:
            shown |= set(range(first, min(last, len(lines)) + 1))
        results.append(tokens("\n".join(lines[number - 1] for number in sorted(shown))))
    return len(results), results


def score(found: set[Pair], truth: set[Pair]) -> tuple[int, int, int]:
    return len(found & truth), len(found), len(truth)


def ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 1.0


def main() -> int:
    global KINDS
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sdist", default="flask==3.0.3")
    parser.add_argument("--cache", type=Path,
                        default=Path.home() / ".cache" / "sari-bench" / "sdists")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--misses", type=Path,
                        help="write the index's wrong and missed lines per symbol (JSON) "
                             "here; with --rescore, those of the by-name answers")
    parser.add_argument("--rescore", type=Path,
                        help="score the index only, against the server answers a --misses "
                             "file recorded (no server started)")
    parser.add_argument("--package", help="the import name, when it is not the sdist's name")
    parser.add_argument("--names-only", action="store_true",
                        help="print the names the rule chooses and stop (to write them down "
                             "in bench/data/navigation_names.json before a first run)")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny generated project, one repetition (CI): checks the bench "
                             "runs end to end, not the targets")
    parser.add_argument("--truth-seconds", type=float, default=300.0,
                        help="the time the server may take for one name's ground truth; a "
                             "name it does not finish is skipped (and said so). Answers are "
                             "kept under --cache, so a later run resumes where this stopped")
    parser.add_argument("--index-only", action="store_true",
                        help="the server gives the ground truth only: no server-backed "
                             "answers (their time on a large tree is the server's)")
    parser.add_argument("--names",
                        help="ask these names (comma-separated) instead of the written-down "
                             "or chosen ones: a run over part of them, said in its output")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="the navigation kinds asked (references,callers): a server "
                             "whose call hierarchy is slow on a large tree can be left to "
                             "references alone")
    args = parser.parse_args()
    KINDS = tuple(kind for kind in args.kinds.split(",") if kind in KINDS) or KINDS
    if args.smoke:
        args.sdist, args.package, args.repeat = "smoke", "smokepkg", 1
    package = args.package or args.sdist.split("==")[0]
    with tempfile.TemporaryDirectory(prefix="sari-nav-") as temp:
        root = (smoke_tree(Path(temp) / "smoke") if args.smoke else
                unpack(sdist(args.sdist, args.cache.expanduser()), Path(temp))).resolve()
        changed = server_over_every_file(root)
        if changed:
            print(f"{args.sdist}: {changed}")
        started = time.perf_counter()
        workspace = Workspace([root], index_path=Path(temp) / "index.sqlite", watch=False)
        workspace.ensure_index(progress=False)
        print(f"{args.sdist}: indexed in {time.perf_counter() - started:.2f} s "
              f"({workspace.index_status()['symbols']} symbol rows)")
        names = WRITTEN_DOWN.get(args.sdist) or choose_names(
            workspace, package_folder(root, package))
        if args.names:
            asked = [name for name in args.names.split(",") if name]
            print(f"{args.sdist}: {len(asked)} names asked on the command line; "
                  f"{len(set(names) - set(asked))} of the {len(names)} chosen left out")
            names = asked
        if args.names_only:
            print(json.dumps({args.sdist: choose_names(workspace, package_folder(root, package))}))
            workspace.close()
            return 0
        if args.rescore:
            code = rescore(workspace, json.loads(args.rescore.read_text(encoding="utf-8")),
                           root, args.misses)
            workspace.close()
            return code
        settings = LspGateSettings(ruff=False)
        runner = ValidationRunner(settings, [root], index_definitions(workspace))
        try:
            misses: list[dict[str, Any]] | None = [] if args.misses else None
            cache = TruthCache(None if args.smoke else
                               args.cache.expanduser() / "navigation-truth" / args.sdist)
            code = run_bench(root, workspace, runner, names, args.repeat, misses, cache,
                             args.truth_seconds, args.index_only)
            if args.misses:
                args.misses.write_text(json.dumps(misses, indent=1), encoding="utf-8")
            return 0 if args.smoke else code
        finally:
            runner.close()
            workspace.close()


def rescore(workspace: Workspace, recorded: list[dict[str, Any]], root: Path | None = None,
            misses: Path | None = None) -> int:
    """Index-only precision and recall against the server's answers that an earlier run
    wrote (``--misses``): the same truth, no server started. Per symbol, and by name (a
    name's truth is the union of its definitions'); with ``misses``, the by-name answers'
    wrong and missed lines are written there."""
    cells = {kind: [0, 0, 0] for kind in KINDS}
    named: dict[tuple[str, str], set[Pair]] = {}
    declared: dict[str, set[Pair]] = {}
    for entry in recorded:
        if entry["kind"] not in KINDS:
            continue
        asked = SearchCall(query=entry["symbol"], kind=entry["kind"], limit=ALL)
        path, _, line = entry["symbol"].rpartition(":")
        truth = {(str(p), int(n)) for p, n in entry["truth"]}
        found = _pairs(workspace.search(asked), (path, int(line)))
        for position, value in enumerate(score(found, truth)):
            cells[entry["kind"]][position] += value
        if entry.get("name"):
            named.setdefault((entry["name"], entry["kind"]), set()).update(truth)
            declared.setdefault(entry["name"], set()).add((path, int(line)))
    print("per symbol, index only, against the recorded server answers:")
    for kind, (hit, size, want) in cells.items():
        print(f"  index           {kind:<11} precision {ratio(hit, size):.3f}  recall "
              f"{ratio(hit, want):.3f}  ({hit} right of {size} found, {want} true)")
    if named:
        by_name = {kind: [0, 0, 0] for kind in KINDS}
        wrong_and_missed = []
        for (name, kind), truth in named.items():
            found = _undeclared(_pairs(workspace.search(
                SearchCall(query=name, kind=kind, limit=ALL))), declared[name])
            truth = _undeclared(truth, declared[name])
            for position, value in enumerate(score(found, truth)):
                by_name[kind][position] += value
            if root is not None and misses is not None:
                wrong_and_missed.append(_misses(root, name, kind, found, truth, name))
        print("by name, index only, against the recorded server answers:")
        for kind, (hit, size, want) in by_name.items():
            print(f"  index           {kind:<11} precision {ratio(hit, size):.3f}  recall "
                  f"{ratio(hit, want):.3f}  ({hit} right of {size} found, {want} true)")
        if root is not None and misses is not None:
            misses.write_text(json.dumps(wrong_and_missed, indent=1), encoding="utf-8")
    return 0 if all(ratio(hit, size) >= 0.7 for hit, size, _ in cells.values()) else 1


def _misses(root: Path, symbol: str, kind: str, found: set[Pair], truth: set[Pair],
            name: str) -> dict[str, Any]:
    """The index's wrong and missed lines for one symbol, with their text."""
    def shown(pairs: set[Pair]) -> list[str]:
        out = []
        for path, line in sorted(pairs):
            lines = (root / path).read_text(encoding="utf-8", errors="replace").split("\n")
            out.append(f"{path}:{line}: {lines[line - 1].strip() if line <= len(lines) else ''}")
        return out
    return {"symbol": symbol, "name": name, "kind": kind, "wrong": shown(found - truth),
            "missed": shown(truth - found), "truth": sorted(truth)}


def run_bench(root: Path, workspace: Workspace, runner: ValidationRunner, names: list[str],
              repeat: int, misses: list[dict[str, Any]] | None = None,
              cache: TruthCache | None = None, truth_seconds: float | None = None,
              index_only: bool = False) -> int:
    started = time.perf_counter()
    runner.prewarm()
    server = _wait_for_server(runner)
    print(f"basedpyright ready in {time.perf_counter() - started:.1f} s; "
          f"{len(names)} names: {', '.join(names)}")
    paths = ("index",) if index_only else ("index", "server")
    totals = {(path, kind): [0, 0, 0] for path in paths for kind in KINDS}
    # per symbol: each definition asked about as path:line, against the server at it alone
    arms = [arm for arm in SYMBOL_ARMS if not (index_only and arm.startswith("server"))]
    per_symbol = {(path, kind): [0, 0, 0] for path in arms for kind in KINDS}
    symbols = 0
    fell_back = 0  # server-backed questions the server did not answer in time: the index's
    latency: dict[str, list[float]] = {arm: [] for arm in ("index", "first", "computed", "kept")}
    costs = {"sari": [], "grep": []}
    kernel = Kernel(workspace, load_entry_points=False, analytics_sinks=[])
    print(f"\n{'name':<24}{'kind':<11}{'truth':>6}{'index P/R':>14}{'server P/R':>14}"
          f"{'first ms':>10}")
    skipped: list[str] = []
    for name in names:
        served: dict[str, set[Pair]] = {}
        first: dict[str, float] = {}
        for kind in () if index_only else KINDS:  # the server's first question about it
            runner.note_change()  # as after any change: nothing kept answers it
            asked = SearchCall(query=name, kind=kind, limit=50)
            first[kind], _ = _ms(lambda c=asked: runner.navigate(c))
            # every hit of that same answer (kept: nothing changed since)
            exact = runner.navigate(SearchCall(query=name, kind=kind, limit=ALL))
            fell_back += exact is None
            served[kind] = _pairs(exact if exact is not None else workspace.search(
                SearchCall(query=name, kind=kind, limit=ALL)))
        definitions = [(row.path, row.line) for row in workspace.store.symbols(
            "s.is_def = 1 AND s.name = ? AND f.path LIKE '%.py'", (name,))]
        each = runner.loop.run(ground_truth(server, root, definitions, name, KINDS, cache,
                                            truth_seconds), timeout=3600)
        if each is None:  # not scored at all: a half-known truth would score it wrongly
            skipped.append(f"{name} ({len(definitions)} definitions)")
            print(f"{name:<24}skipped: the server's truth took over {truth_seconds:.0f} s "
                  f"({len(definitions)} definitions; what it answered is kept for the next run)")
            continue
        declared = set(definitions)
        truth = {kind: _undeclared(pairs, declared) for kind, pairs in _union(each).items()}
        if len(definitions) > 1:  # per symbol differs from by name only where names are shared
            symbols += len(definitions)
        by_name = {kind: _undeclared(_pairs(workspace.search(
            SearchCall(query=name, kind=kind, limit=ALL))), declared) for kind in KINDS}
        for (path, line), mine in each.items():
            for kind in KINDS:
                asked = SearchCall(query=f"{path}:{line}", kind=kind, limit=ALL)
                answers_index = _pairs(workspace.search(asked), (path, line))
                answers = {"index": answers_index, "index, by name": by_name[kind]}
                if not index_only:
                    exact = runner.navigate(asked)
                    fell_back += exact is None
                    answers["server"] = _pairs(exact) if exact is not None else answers_index
                    answers["server, by name"] = _undeclared(served[kind], declared)
                if misses is not None:
                    misses.append(_misses(root, f"{path}:{line}", kind, answers["index"],
                                          mine[kind], name))
                for arm, found in answers.items():
                    cell = per_symbol[(arm, kind)]
                    wanted = (_undeclared(mine[kind], declared) if arm.endswith("by name")
                              else mine[kind])
                    for position, value in enumerate(score(found, wanted)):
                        cell[position] += value
        for kind in KINDS:
            index = by_name[kind]
            rows = []
            for path, found in (("index", index), ("server", served.get(kind))):
                if found is None:
                    continue
                found = _undeclared(found, declared)
                hit, size, want = score(found, truth[kind])
                cell = totals[(path, kind)]
                cell[0] += hit
                cell[1] += size
                cell[2] += want
                rows.append(f"{ratio(hit, size):.2f}/{ratio(hit, want):.2f}")
            server_row = rows[1] if len(rows) > 1 else "-"
            first_ms = f"{first[kind]:.1f}" if kind in first else "-"
            print(f"{name:<24}{kind:<11}{len(truth[kind]):>6}{rows[0]:>14}{server_row:>14}"
                  f"{first_ms:>10}")
            capped = SearchCall(query=name, kind=kind, limit=50)
            latency["index"].append(_p50_ms(lambda c=capped: workspace.search(c), repeat))
            if index_only:
                continue
            latency["first"].append(first[kind])
            latency["computed"].append(_p50_ms(lambda c=capped: runner.navigate(c), repeat,
                                               before=runner.note_change))
            latency["kept"].append(_p50_ms(lambda c=capped: runner.navigate(c), repeat))
        answer = kernel.execute_search({"query": name, "kind": "callers", "limit": 50})
        costs["sari"].append(session_cost([tokens(json.dumps(answer))]))
        _, grep_results = grep_and_read_cost(root, name)
        costs["grep"].append(session_cost(grep_results))
    kernel.close()
    if skipped:
        print(f"\nskipped, the server's truth not complete within {truth_seconds:.0f} s: "
              f"{', '.join(skipped)}")
    print(f"\nper symbol (each definition asked as path:line; {symbols} definitions share "
          f"their name with another; server-backed fell back to the index {fell_back} times):")
    for (path, kind), (hit, size, want) in per_symbol.items():
        print(f"  {path:<16}{kind:<11} precision {ratio(hit, size):.3f}  recall "
              f"{ratio(hit, want):.3f}  ({hit} right of {size} found, {want} true)")
    return report(totals, latency, costs, per_symbol)


def _wait_for_server(runner: ValidationRunner) -> LanguageServer:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        for server, _ in runner.navigators():
            if server.name == "basedpyright" and server.running and server.capabilities:
                return server
        time.sleep(0.2)
    raise SystemExit("basedpyright did not start (pip install basedpyright)")


def report(totals: dict[tuple[str, str], list[int]], latency: dict[str, list[float]],
           costs: dict[str, list[Any]], per_symbol: dict[tuple[str, str], list[int]]) -> int:
    print("\nby name, over all names (file, line pairs):")
    figures = {}
    for (path, kind), (hit, size, want) in totals.items():
        figures[(path, kind)] = (ratio(hit, size), ratio(hit, want))
        print(f"  {path:<7}{kind:<11} precision {ratio(hit, size):.3f}  recall "
              f"{ratio(hit, want):.3f}  ({hit} right of {size} found, {want} true)")
    index_only = ("server", KINDS[0]) not in totals
    p50 = {arm: statistics.median(values or [0.0]) for arm, values in latency.items()}
    slowest = {arm: max(values or [0.0]) for arm, values in latency.items()}
    server_latency = "" if index_only else (
        f"; server-backed: first ask {p50['first']:.1f} ms "
        f"({slowest['first']:.0f}), asked again on the warm server {p50['computed']:.1f} ms "
        f"({slowest['computed']:.0f}), repeated with nothing changed (kept answer) "
        f"{p50['kept']:.2f} ms ({slowest['kept']:.0f})")
    print(f"  p50 latency (limit 50; slowest in brackets): index {p50['index']:.1f} ms "
          f"({slowest['index']:.0f}){server_latency}")
    sari, grep = (sum(c.cached for c in costs[arm]) for arm in ("sari", "grep"))
    sari_turns, grep_turns = (sum(c.turns for c in costs[arm]) for arm in ("sari", "grep"))
    sari_tokens, grep_tokens = (sum(c.result_tokens for c in costs[arm])
                                for arm in ("sari", "grep"))
    count = len(costs["sari"])
    print(f"  'who calls X' x{count}: Sari {sari_turns} turns, {sari_tokens} result tokens, "
          f"cost {sari:,.0f}; grep-and-read {grep_turns} turns, {grep_tokens} result tokens, "
          f"cost {grep:,.0f} (cached, input-token units); grep/Sari {grep / sari:.2f}x")
    symbol = {key: (ratio(hit, size), ratio(hit, want))
              for key, (hit, size, want) in per_symbol.items()}
    checks = [
        ("per symbol, index-only precision >= 0.85 (references, callers)",
         all(symbol[("index", kind)][0] >= 0.85 for kind in KINDS)),
        ("by name, index-only precision >= 0.85 (references, callers)",
         all(figures[("index", kind)][0] >= 0.85 for kind in KINDS)),
        ("index-only recall 1.0 (references, callers)",
         all(figures[("index", kind)][1] >= 1.0 for kind in KINDS)),
        ("index-only p50 < 50 ms warm", p50["index"] < 50),
    ]
    if not index_only:
        checks += [
            ("per symbol, server-backed precision and recall >= 0.95 (references, callers)",
             all(min(symbol[("server", kind)]) >= 0.95 for kind in KINDS)),
            ("server-backed precision >= 0.95 (references, callers)",
             all(figures[("server", kind)][0] >= 0.95 for kind in KINDS)),
            ("server-backed recall >= 0.95 (references, callers)",
             all(figures[("server", kind)][1] >= 0.95 for kind in KINDS)),
            ("server-backed p50 < 50 ms warm, computed by the server", p50["computed"] < 50),
            ("server-backed p50 < 50 ms, first ask of each question", p50["first"] < 50),
        ]
    print("\ntargets:")
    for label, ok in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {label}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
