"""``sari search QUERY``: search a workspace (text, regex, symbol or path), ranked."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from sari_core.cli.workspace_call import (
    add_common,
    configured_or_exit,
    given,
    run_call,
    workspace_root,
)
from sari_core.kernel.commands import CommandRegistry

if TYPE_CHECKING:
    from sari_core.kernel import Kernel


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help="what to look for")
    parser.add_argument("--kind", choices=("text", "regex", "symbol", "path", "references",
                                           "callers", "implementations"), default=None,
                        help="text (literal, the default), regex, symbol, path, or the "
                             "references, callers or implementations of a symbol")
    parser.add_argument("--match", choices=("exact", "prefix", "fuzzy"), default=None,
                        help="how symbol names match (any case or naming style; without it, "
                             "the name and names starting with it)")
    parser.add_argument("--limit", type=int, default=None, help="matches to show (default "
                        "10, at most 50)")
    parser.add_argument("--glob", default=None, metavar="GLOB",
                        help="only paths matching this glob, e.g. '*.py' or 'src/**'")
    parser.add_argument("--case-sensitive", action="store_true", default=None,
                        help="match case exactly (default: case-insensitive)")
    add_common(parser)


def render(response: dict[str, Any]) -> None:
    matches = response.get("matches", [])
    for match in matches:
        where = match["path"] if match.get("line") is None else f"{match['path']}:{match['line']}"
        label = match.get("kind", "")
        if match.get("scope"):
            first, last = match.get("scope_lines") or (0, 0)
            label = f"{label} in {match['scope']} {first}-{last}"
        snippet = f"  {match['snippet']}" if match.get("snippet") else ""
        print(f"{where}{snippet}   [{label} {match.get('score', 0):g}]")
    ready = "" if response.get("meta", {}).get("index_ready", True) else " (index still building)"
    print(footer(response) + ready)


def footer(response: dict[str, Any]) -> str:
    """How many matched and how many are shown, each counted in its own unit: a text search
    counts the files that match, and shows matching lines."""
    matches = response.get("matches", [])
    unit = response.get("meta", {}).get("total_unit", "matches")
    total = response.get("total", len(matches))
    if unit != "files":
        return f"{total} {unit} matched, {len(matches)} shown"
    files = len({match["path"] for match in matches})
    return (f"{_count(total, 'file')} matched; {_count(len(matches), 'match', 'matches')} "
            f"shown, from {_count(files, 'file')}")


def _count(number: int, one: str, many: str | None = None) -> str:
    return f"{number} {one if number == 1 else (many or one + 's')}"


def run(args: argparse.Namespace) -> int:
    from sari_core.cli.early_scan import start_early_scan
    from sari_core.engine.scan import rg_command

    # rg reads the tree while the kernel loads (a never-indexed workspace is scanned)
    root = workspace_root(args.workspace)
    start_early_scan(args, root, configured_or_exit(root))
    arguments = {"query": args.query, **given(args, {
        "kind": "kind", "match": "match", "limit": "limit", "glob": "path_glob", "case_sensitive": "case_sensitive",
        "session_id": "session_id"})}

    def search(kernel: Kernel) -> dict[str, Any]:
        try:
            return kernel.execute_search(arguments)
        finally:  # an early rg the call did not take (a policy refused it...) stops now
            rg_command.stop_unused()

    return run_call(args, search, render)


def register(registry: CommandRegistry) -> None:
    registry.add("search", "Search a workspace: literal text (default), regex, symbol or path.",
                 configure, run)
