"""What an agent session costs with Sari against the tools the agent already has.

Four arms replay the same scripted sessions (``bench/agent_cost_corpora.py``: the 24
standard-library sessions of ``bench/replay_scripts.py``, 8 on the attrs sdist and 10 on the
jinja2 sdist), each agent knowing only what its tools' texts showed it
(``bench/agent_cost_agents.py`` says what every arm does; no arm is told a line range):

* **whole-file**: the client's own Grep and Read (``bench/agent_cost_native.py``: ripgrep,
  numbered lines, the CLI's page and notes, its "file unchanged" answer to a repeated Read),
  reading what its script says, whole files included;
* **careful**: the same tools, but a whole file only when it is short or the script gives the
  range; otherwise the range around the hits its searches showed;
* **core**: Sari with no policy (``search``/``read`` of the kernel, no plugins);
* **policies**: Sari with the default policies (budget, relevance, aggregation, refgate);
* **whole-file + hooks**, **careful + hooks**: the two native agents with Sari's hooks in
  front of their Grep and Read (``bench/agent_cost_hooks.py``): each call goes through the
  hook path with the default policies, as Claude Code sends it, and the agent obeys the
  answer (deny, ``updatedInput``, ``additionalContext``) as the client does. Their
  conversation also carries the Sari server's instructions (its tools are not listed to the
  model: the hook's own tool is unlisted, and the client defers the others).

What is measured is what the model is shown: the text of each tool result (Sari's rendered by
the server's own ``sari_core.server.results.to_call_result``). A turn-aware cost comes from
``sari_core.costmodel``: the conversation starts at 20,000 tokens plus the tool definitions
the arm's server adds, as Claude Code sends them to its model (chars/4 of each tool as
``{"name": "mcp__sari__<tool>", "description", "input_schema"}``, plus the server's
instructions in the block Claude Code wraps them in, if it has any; the end-to-end tests hold
both figures to the CLI's); the native tools are part of the 20,000 in every arm. Every call
is a turn that reads the whole conversation so far, 150 output tokens per call; cached
(previous prefix at 0.1x, new tokens at 1.25x) and uncached (1x).

The judged figures have Sari's tools **on top of** the client's. A second line gives them
**in place of** the client's Read, Edit and Write (``--in-place-of``, default 1,414 tokens:
what ``bench/client_definitions.py`` printed for the pinned CLI): the client is told not to
list those (Claude Code: ``permissions.deny``), so the Sari arms are credited their
definitions on every turn.

    python bench/agent_cost.py [--json PATH] [--in-place-of TOKENS] [--hooks-design D]
                               [--corpus NAME]... [--smoke]
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

from agent_cost_agents import SariAgent, Tally  # noqa: E402
from agent_cost_corpora import Corpus, Search, corpora, smoke_corpus  # noqa: E402
from agent_cost_hooks import (  # noqa: E402
    DESIGNS,
    HookedCarefulAgent,
    HookedNativeAgent,
    use_design,
)
from agent_cost_native import CarefulAgent, NativeAgent  # noqa: E402
from agent_cost_report import print_report  # noqa: E402
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
ARMS = ("whole-file", "careful", "core", "policies", "whole-file + hooks", "careful + hooks")
NATIVE = {"whole-file": NativeAgent, "careful": CarefulAgent}
HOOKED = {"whole-file + hooks": HookedNativeAgent, "careful + hooks": HookedCarefulAgent}
# Claude Code's Read, Edit and Write as CLI 2.1.330 sends them (bench/client_definitions.py).
CLIENT_FILE_TOOLS = 1414


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
    if arm in NATIVE:
        return [NATIVE[arm](corpus, session).run() for session in corpus.sessions]
    kernel = open_kernel(corpus.root, policy_plugins() if arm != "core" else [])
    try:
        if arm in HOOKED:
            return [HOOKED[arm](corpus, session, kernel).run() for session in corpus.sessions]
        return [SariAgent(kernel, corpus, session, arm).run() for session in corpus.sessions]
    finally:
        kernel.close()


def fewest_calls(corpus: Corpus, session: Any) -> int:
    """The calls no arm can do without: the script's searches and its reads of lines that
    hold nothing the task needs (every arm makes those; a needed definition could at best
    come with a search's answer)."""
    needed: dict[str, set[int]] = {}
    for module, dotted in session.needs:
        top, end = corpus.definition_lines(module, dotted)
        needed.setdefault(corpus.path_of(module), set()).update(range(top, end + 1))
    calls = 0
    for step in session.steps:
        if isinstance(step, Search):
            calls += 1
            continue
        path = corpus.path_of(step.module)
        calls += not needed.get(path, set()).intersection(corpus.wanted(step, path))
    return calls


def cost_of(tally: Tally, definitions: int) -> SessionCost:
    return session_cost(tally.result_tokens, definitions)


def tool_definitions(in_place_of: int = 0) -> dict[str, int]:
    """The tool-definition tokens each arm adds to the conversation: what its own server lists.

    :param in_place_of: definition tokens of the client's own tools that Sari's replace (the
        client told not to list them); 0 adds Sari's tools on top of the client's.
    :return: per arm (``whole-file``, ``careful``, ``core``, ``policies``, and the two
        ``+ hooks`` arms: the server's instructions only) the net tokens Claude Code sends
        its model (:func:`sent_definitions`); ``every_plugin``, what it sends with every
        installed plugin loaded (tools of plugins the policies arm does not run, such as the
        execution log's query, included); ``listed_every_plugin``, chars/4 of that server's
        tools/list entries (the definitions budget's measure), and ``every_client``, of that
        listing to a client given output schemas; ``in_place_of`` as given.
    """
    definitions = {"whole-file": 0, "careful": 0, "every_plugin": every_plugin_tokens(sent_tokens),
                   "listed_every_plugin": every_plugin_tokens(listed_tool_tokens),
                   "every_client": every_plugin_tokens(lambda k: listed_tool_tokens(k, None)),
                   "in_place_of": in_place_of}
    with tempfile.TemporaryDirectory(prefix="sari-bench-probe-") as probe_root:
        (Path(probe_root) / "a.py").write_text("x = 1\n", encoding="utf-8")
        for arm, plugins in (("core", []), ("policies", policy_plugins())):
            probe = open_kernel(Path(probe_root), plugins)
            try:
                definitions[arm] = sent_tokens(probe) - in_place_of
                if arm == "policies":  # the hooks' server: its instructions, no tool listed
                    for hooked in HOOKED:
                        definitions[hooked] = sent_definitions(probe)["instructions"]
            finally:
                probe.close()
    return definitions


def chosen_corpora(names: Iterable[str] = ()) -> list[Corpus]:
    """The corpora whose names start with one of ``names`` (every corpus when none is given).

    :raises SystemExit: a name that starts no corpus's name.
    """
    every = corpora()
    names = list(names)
    unknown = [n for n in names if not any(c.name.startswith(n) for c in every)]
    if unknown:
        raise SystemExit(f"no corpus named {', '.join(unknown)}; the corpora: "
                         f"{', '.join(c.name for c in every)}")
    return [c for c in every if not names or any(c.name.startswith(n) for n in names)]


def measure(in_place_of: int = CLIENT_FILE_TOOLS, smoke: Path | None = None,
            names: Iterable[str] = ()) -> dict[str, Any]:
    """Replay every session in every arm, Sari's tools on top of the client's; each Sari
    arm is also costed with ``in_place_of`` tokens of the client's tools credited.

    :param smoke: a folder for the small corpus of a quick run (three sessions), or None
        for the corpora.
    :param names: the corpora to replay (:func:`chosen_corpora`); every one when empty.
    """
    definitions = tool_definitions()
    rows: list[dict[str, Any]] = []
    for corpus in [smoke_corpus(smoke)] if smoke is not None else chosen_corpora(names):
        tallies = {arm: replay(corpus, arm) for arm in ARMS}
        for index, session in enumerate(corpus.sessions):
            row: dict[str, Any] = {"corpus": corpus.name, "session": session.name}
            fewest = fewest_calls(corpus, session)
            # Those calls with every result free: what no arm can go below.
            least = session_cost([0] * fewest, definitions["policies"])
            row["fewest"] = {"calls": fewest, "cached": least.cached,
                             "uncached": least.uncached}
            for arm in ARMS:
                tally = tallies[arm][index]
                cost = cost_of(tally, definitions[arm])
                # The same turns with every tool result free: what no policy can go below.
                floor = session_cost([0] * cost.calls, definitions[arm])
                row[arm] = {"tokens": sum(tally.result_tokens), "turns": cost.turns,
                            "uncached": cost.uncached, "cached": cost.cached,
                            "floor_uncached": floor.uncached, "floor_cached": floor.cached,
                            "needed": tally.needed, "delivered": tally.needed_delivered,
                            "refused": tally.refused, "skipped": tally.skipped,
                            "unchanged": tally.unchanged, "oversized": tally.oversized}
                if arm in ("core", "policies"):
                    credited = cost_of(tally, definitions[arm] - in_place_of)
                    row[arm].update(in_place_uncached=credited.uncached,
                                    in_place_cached=credited.cached)
            rows.append(row)
    definitions["in_place_of"] = in_place_of
    return {"definitions": definitions, "sessions": rows, "total": _totals(rows)}


def _totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    totals: dict[str, Any] = {}
    for arm in (*ARMS, "fewest"):
        arm_rows = [row[arm] for row in rows]
        totals[arm] = {key: sum(r[key] for r in arm_rows) for key in arm_rows[0]}
    return totals


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="also write the figures as JSON to PATH (the docs' charts read "
                             "docs/data/agent_cost.json)")
    parser.add_argument(
        "--in-place-of", type=int, default=CLIENT_FILE_TOOLS, metavar="TOKENS",
        help="definition tokens of the client's own tools Sari's replace when the client is "
             "told not to list them, credited on the second line (default: Claude Code's "
             f"Read, Edit and Write, {CLIENT_FILE_TOOLS}; bench/client_definitions.py prints "
             "them); the judged figures add Sari's tools on top of the client's")
    parser.add_argument("--hooks-design", choices=DESIGNS, default=DESIGNS[0],
                        help="what the + hooks arms' hooks answer (bench/agent_cost_hooks.py)")
    parser.add_argument("--corpus", action="append", default=[], metavar="NAME",
                        help="replay only the corpora whose names start with NAME (repeat "
                             "for more: stdlib, attrs, jinja2, click, requests, marshmallow)")
    parser.add_argument("--smoke", action="store_true",
                        help="three standard-library sessions over a copy of their files: "
                             "seconds, for a test that the bench runs")
    args = parser.parse_args(list(argv) if argv is not None else None)
    use_design(args.hooks_design)
    started = time.perf_counter()
    with scratch_folders(), tempfile.TemporaryDirectory(prefix="sari-bench-smoke-") as folder:
        data = measure(args.in_place_of, Path(folder) if args.smoke else None, args.corpus)
    data["seconds"] = round(time.perf_counter() - started, 1)
    data["hooks_design"] = args.hooks_design
    data["python"] = sys.version.split()[0]
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print_report(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
