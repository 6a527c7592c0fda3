"""What an agent session costs with Sari against the tools the agent already has.

Three arms replay the same scripted sessions (``bench/agent_cost_corpora.py``: the 24
standard-library sessions of ``bench/replay_scripts.py`` and 8 on the attrs sdist):

* **native**: an emulation of a coding agent's built-in tools.
  Grep is ripgrep in content mode with ``-n``: every matching line of every file the
  workspace walk keeps (``.gitignore``, hidden and build folders skipped) as
  ``path:line:text``, literal and case-sensitive, cut to its first 250 lines (the
  built-in ``head_limit``) with the CLI's note saying so. Read prints numbered lines
  (``line number, a tab, the line``) from ``offset`` for ``limit`` lines; with no limit,
  one page: the lines while the CLI's token estimate of them stays within 21,250 (85% of
  its 25,000-token cap), then its note naming the next page's offset. That is what the
  pinned Claude Code CLI does; an end-to-end test holds the emulation to it. The native
  agent has no symbol read: it reads the definition's lines (it knows them from its
  search). It never gets refused.
* **core**: Sari with no policy (``search``/``read`` of the kernel, no plugins).
* **policies**: Sari with the default policies (budget, relevance, aggregation, refgate).

Every arm makes the script's calls, then reads the needed lines of a read's range that
did not arrive: a cut read's continuation while its next page holds them, else each
missing run (runs at most 10 lines apart taken as one) in one read (in windows of at most
200 lines if that read brought nothing). A refusal costs its turn, and the agent
then makes the call the refusal names (the first proposed read of its target, else the
proposed search followed by the read again); a spent budget makes it search once and stop
reading. It passes a search's ``candidate_id`` only when the text it was shown contains it.

What is measured is what the model is shown: the text content of each MCP tool result,
rendered by the server's own function (``sari_core.server.results.to_call_result``). A
turn-aware cost comes from ``sari_core.costmodel``: the conversation starts at 20,000
tokens plus the tool definitions the arm's server lists, as Claude Code sends them to its
model (chars/4 of each tool as ``{"name": "mcp__sari__<tool>", "description", "input_schema"}``:
the title, annotations and output schema of a tools/list entry are not sent, and the server
lists Claude Code no output schemas), plus the server's instructions in the block Claude Code
wraps them in, if it has any (the end-to-end tests hold both figures to the CLI's). The
policies arm's server runs those four policies, and a plugin it does not run, such as the
execution log's, lists no tool there; the native tools are part of the 20,000 in every arm,
Sari's are added on top. Every call is a turn that reads the whole conversation so far, 150
output tokens per call; cached (previous prefix at 0.1x, new tokens at 1.25x) and uncached
(1x). The policies arm's cost with every installed plugin's tools listed is printed too; the
tools/list size (the definitions budget's measure) is printed beside it.

Payload is the code or matches asked for: each delivered line with its number, each match
snippet with its line number, each file path once, and an outline's entries (a definition's
kind, name and lines, as a search match gives them; an outline delivers no file line). Everything else (JSON envelope, ids,
counters, headers, sentences, repeated paths, padding) is non-payload.

With ``--in-place-of TOKENS`` Sari's tools stand in for the client's own file tools, which
the client is told not to list (Claude Code: ``permissions.deny`` of ``Read``, ``Edit`` and
``Write``, whose size ``bench/client_definitions.py`` prints): the Sari arms' definitions are
their own less those tokens. The targets assume the default, Sari's tools on top.

    python bench/agent_cost.py [--json] [--in-place-of TOKENS]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_cost_agents import MCP_RESULT_CHARS, NativeAgent, SariAgent, Tally  # noqa: E402
from agent_cost_corpora import Corpus, corpora  # noqa: E402
from scratch import scratch_folders  # noqa: E402

from sari_core.costmodel import SessionCost, session_cost  # noqa: E402

POLICIES = ("budget", "relevance", "aggregation", "refgate")
# The client whose model reads the text content measured here: Claude Code shows its model
# the text only when a result carries no structured content, and is listed no output schemas.
TEXT_CLIENT = "claude-code"
# How Claude Code shows its model a server's instructions: a block of the first user message.
INSTRUCTIONS_BLOCK = ("<system-reminder>\n# MCP Server Instructions\n\nThe following MCP servers "
                      "have provided instructions for how to use their tools and resources:"
                      "\n\n## {server}\n{instructions}\n</system-reminder>")
ARMS = ("native", "core", "policies")


def policy_plugins() -> list[Any]:
    from sari_aggregation import AggregationPlugin
    from sari_budget import BudgetPlugin
    from sari_refgate import RefgatePlugin
    from sari_relevance import RelevancePlugin

    return [BudgetPlugin(), RelevancePlugin(), AggregationPlugin(), RefgatePlugin()]


def open_kernel(root: Path, plugins: list[Any], entry_points: bool = False) -> Any:
    from sari_core import Kernel
    from sari_core.engine import Workspace

    kernel = Kernel(Workspace([root]), plugins=plugins, load_entry_points=entry_points,
                    analytics_sinks=[])
    for method in ("ensure_index", "build_index", "index"):
        build = getattr(kernel.engine, method, None)
        if callable(build):
            build()
            break
    return kernel


def listed_tool_tokens(kernel: Any, client: str | None = TEXT_CLIENT) -> int:
    """chars/4 of the tools/list entries the server shows ``client`` for this kernel."""
    from sari_core.costmodel import tokens
    from sari_core.server.catalog import ToolCatalog

    catalog = ToolCatalog(kernel)
    options = getattr(catalog, "options", None)
    if options is not None and hasattr(options, "structured_for"):
        tools = catalog.tools(options.structured_for(client))
    else:  # a server that lists the same entries to every client
        tools = catalog.tools()
    entries = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    return sum(tokens(json.dumps(entry, separators=(",", ":"))) for entry in entries)


def sent_definitions(kernel: Any, server: str = "sari") -> dict[str, int]:
    """What Claude Code sends its model for this kernel's server, in tokens (chars/4): each
    tool listed to it, keyed ``mcp__<server>__<tool>``, and ``instructions``, the server's
    instructions in the block Claude Code wraps them in (0 when it has none)."""
    from sari_core.costmodel import tokens
    from sari_core.server.app import SariServer

    app = SariServer(kernel)
    options = app.catalog.options
    sent = {f"mcp__{server}__{tool.name}": tokens(json.dumps(
        {"name": f"mcp__{server}__{tool.name}", "description": tool.description,
         "input_schema": tool.input_schema}, separators=(",", ":")))
        for tool in app.catalog.tools(options.structured_for(TEXT_CLIENT))}
    instructions = app.lowlevel.instructions
    sent["instructions"] = tokens(INSTRUCTIONS_BLOCK.format(
        server=server, instructions=instructions)) if instructions else 0
    return sent


def sent_tokens(kernel: Any) -> int:
    """All that Claude Code sends its model for this kernel's server: tools and instructions."""
    return sum(sent_definitions(kernel).values())


def every_plugin_tokens(measure: Callable[[Any], int]) -> int:
    """``measure`` of a server with every installed plugin loaded (what a full install shows)."""
    with tempfile.TemporaryDirectory(prefix="sari-bench-tools-") as folder:
        (Path(folder) / "a.py").write_text("x = 1\n", encoding="utf-8")
        kernel = open_kernel(Path(folder), [], entry_points=True)
        try:
            return measure(kernel)
        finally:
            kernel.close()


def replay(corpus: Corpus, arm: str) -> list[Tally]:
    if arm == "native":
        return [NativeAgent(corpus, session).run() for session in corpus.sessions]
    kernel = open_kernel(corpus.root, policy_plugins() if arm == "policies" else [])
    try:
        return [SariAgent(kernel, corpus, session).run() for session in corpus.sessions]
    finally:
        kernel.close()


def cost_of(tally: Tally, definitions: int) -> SessionCost:
    return session_cost(tally.result_tokens, definitions)


def tool_definitions(in_place_of: int = 0) -> dict[str, int]:
    """The tool-definition tokens each arm adds to the conversation: what its own server lists.

    :param in_place_of: definition tokens of the client's own tools that Sari's replace (the
        client told not to list them); 0 adds Sari's tools on top of the client's.
    :return: per arm (``native``, ``core``, ``policies``) the net tokens Claude Code sends
        its model (:func:`sent_definitions`); ``every_plugin``, what it sends with every
        installed plugin loaded (tools of plugins the policies arm does not run, such as the
        execution log's query, included); ``listed_every_plugin``, chars/4 of that server's
        tools/list entries (the definitions budget's measure), and ``every_client``, of that
        listing to a client given output schemas; ``in_place_of`` as given.
    """
    definitions = {"native": 0, "every_plugin": every_plugin_tokens(sent_tokens),
                   "listed_every_plugin": every_plugin_tokens(listed_tool_tokens),
                   "every_client": every_plugin_tokens(lambda k: listed_tool_tokens(k, None)),
                   "in_place_of": in_place_of}
    with tempfile.TemporaryDirectory(prefix="sari-bench-probe-") as probe_root:
        (Path(probe_root) / "a.py").write_text("x = 1\n", encoding="utf-8")
        for arm, plugins in (("core", []), ("policies", policy_plugins())):
            probe = open_kernel(Path(probe_root), plugins)
            try:
                definitions[arm] = sent_tokens(probe) - in_place_of
            finally:
                probe.close()
    return definitions


def measure(in_place_of: int = 0) -> dict[str, Any]:
    """Replay every session in every arm (``in_place_of``: see :func:`tool_definitions`)."""
    definitions = tool_definitions(in_place_of)
    rows: list[dict[str, Any]] = []
    for corpus in corpora():
        tallies = {arm: replay(corpus, arm) for arm in ARMS}
        for index, session in enumerate(corpus.sessions):
            row: dict[str, Any] = {"corpus": corpus.name, "session": session.name}
            for arm in ARMS:
                tally = tallies[arm][index]
                cost = cost_of(tally, definitions[arm])
                # The same turns with every tool result free: what no policy can go below.
                floor = session_cost([0] * cost.calls, definitions[arm])
                row[arm] = {"tokens": sum(tally.result_tokens), "turns": cost.turns,
                            "uncached": cost.uncached, "cached": cost.cached,
                            "floor_uncached": floor.uncached, "floor_cached": floor.cached,
                            "payload": tally.payload_tokens, "needed": tally.needed,
                            "delivered": tally.needed_delivered, "refused": tally.refused,
                            "oversized": tally.oversized}
            every = cost_of(tallies["policies"][index], definitions["every_plugin"]
                            - definitions["in_place_of"])
            row["policies"].update(every_uncached=every.uncached, every_cached=every.cached)
            rows.append(row)
    return {"definitions": definitions, "sessions": rows, "total": _totals(rows, definitions)}


def _totals(rows: list[dict[str, Any]], definitions: dict[str, int]) -> dict[str, Any]:
    totals: dict[str, Any] = {}
    for arm in ARMS:
        arm_rows = [row[arm] for row in rows]
        totals[arm] = {key: sum(r[key] for r in arm_rows) for key in (
            "tokens", "turns", "uncached", "cached", "payload", "needed", "delivered", "refused",
            "oversized", "floor_uncached", "floor_cached")}
    totals["policies"].update({key: sum(row["policies"][key] for row in rows)
                               for key in ("every_uncached", "every_cached")})
    return totals


def _share(tokens: int, payload: int) -> float:
    return 0.0 if tokens == 0 else max(0, tokens - payload) / tokens


def targets(data: dict[str, Any]) -> list[tuple[str, bool, str]]:
    t = data["total"]
    native, policies = t["native"], t["policies"]
    rows = data["sessions"]
    cached = policies["cached"] / native["cached"]
    uncached = policies["uncached"] / native["uncached"]
    turn_limit = native["turns"] * 1.05
    share = _share(policies["tokens"], policies["payload"])
    dearer = [r["session"] for r in rows if r["policies"]["uncached"] > r["native"]["uncached"]
              or r["policies"]["cached"] > r["native"]["cached"]]
    short = [r["session"] for r in rows if r["policies"]["delivered"] < r["policies"]["needed"]]
    core_dearer = [r["session"] for r in rows if r["core"]["uncached"] > r["native"]["uncached"]
                   or r["core"]["cached"] > r["native"]["cached"]]
    return [
        ("policies cached cost <= 0.65x native", cached <= 0.65, f"{cached:.3f}x"),
        ("policies uncached cost <= 0.80x native", uncached <= 0.80, f"{uncached:.3f}x"),
        ("policies turns <= native turns + 5%", policies["turns"] <= turn_limit,
         f"{policies['turns']} vs {native['turns']} (limit {turn_limit:.0f})"),
        ("policies non-payload text <= 10% of tokens", share <= 0.10, f"{share:.1%}"),
        ("no policies session costs more than native", not dearer,
         f"{len(dearer)} dearer" + (f": {', '.join(dearer)}" if dearer else "")),
        ("every needed line delivered (policies)", not short,
         f"{policies['delivered']}/{policies['needed']}"
         + (f"; short: {', '.join(short)}" if short else "")),
        ("core costs no more than native in every session", not core_dearer,
         f"{len(core_dearer)} dearer" + (f": {', '.join(core_dearer)}" if core_dearer else "")),
        # Not one of the targets set: what makes the figures above hold with a real client.
        (f"every Sari result reaches the model whole (at most {MCP_RESULT_CHARS:,} characters)",
         not t["core"]["oversized"] and not policies["oversized"],
         f"over: core {t['core']['oversized']}, policies {policies['oversized']}"),
    ]


def print_report(data: dict[str, Any], seconds: float) -> None:
    d = data["definitions"]
    replaced = d.get("in_place_of", 0)
    where = (f"in place of {replaced} tokens of the client's own tools: net {d['core']} and "
             f"{d['policies']}" if replaced else "native tools: in the 20,000 base")
    print(f"python {sys.version.split()[0]}; definitions {TEXT_CLIENT} sends its model: core "
          f"{d['core'] + replaced} tokens, default policies {d['policies'] + replaced} tokens, "
          f"every plugin installed {d['every_plugin']} tokens ({where}); tools/list with every "
          f"plugin installed: {d['listed_every_plugin']} tokens (to a client given output "
          f"schemas: {d['every_client']})")
    head = f"{'session':<28}" + "".join(
        f"{arm + ' tok':>12}{'turns':>6}{'unc k':>8}{'cac k':>7}{'need':>9}" for arm in ARMS)
    print(head)
    for row in data["sessions"]:
        print(f"{row['session']:<28}" + "".join(_cells(row[arm]) for arm in ARMS))
    print(f"{'total':<28}" + "".join(_cells(data["total"][arm]) for arm in ARMS))
    for arm in ARMS:
        t = data["total"][arm]
        native = data["total"]["native"]
        print(f"{arm:<9} tokens {t['tokens']:>7}  turns {t['turns']:>4}  uncached "
              f"{t['uncached']:>11,.0f} ({t['uncached'] / native['uncached']:.3f}x)  cached "
              f"{t['cached']:>11,.0f} ({t['cached'] / native['cached']:.3f}x)  non-payload "
              f"{_share(t['tokens'], t['payload']):.1%}  refusals {t['refused']}  needed "
              f"{t['delivered']}/{t['needed']}")
    native = data["total"]["native"]
    for arm in ARMS[1:]:
        t = data["total"][arm]
        print(f"{arm:<9} with these turns and every tool result free (the floor): uncached "
              f"{t['floor_uncached'] / native['uncached']:.3f}x, cached "
              f"{t['floor_cached'] / native['cached']:.3f}x")
    t = data["total"]["policies"]
    print(f"policies with every installed plugin's tools listed ({d['every_plugin']} tokens): "
          f"uncached {t['every_uncached'] / native['uncached']:.3f}x, cached "
          f"{t['every_cached'] / native['cached']:.3f}x")
    print(f"replayed in {seconds:.0f} s")
    for name, met, figure in targets(data):
        print(f"{'PASS' if met else 'FAIL'}  {name}: {figure}")


def _cells(cell: dict[str, Any]) -> str:
    need = f"{cell['delivered']}/{cell['needed']}"
    return (f"{cell['tokens']:>12}{cell['turns']:>6}{cell['uncached'] / 1000:>8.0f}"
            f"{cell['cached'] / 1000:>7.0f}{need:>9}")


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--in-place-of", type=int, default=0, metavar="TOKENS",
        help="definition tokens of the client's own tools that Sari's replace, the client "
             "told not to list them (Claude Code's Read, Edit and Write: "
             "bench/client_definitions.py prints their size); the default, 0, adds Sari's "
             "tools on top of the client's, which is what the targets assume")
    args = parser.parse_args(list(argv) if argv is not None else None)
    started = time.perf_counter()
    with scratch_folders():  # the indexes it builds (~800 MB) go when it ends
        data = measure(args.in_place_of)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print_report(data, time.perf_counter() - started)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
