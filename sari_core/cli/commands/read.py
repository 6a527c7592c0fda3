"""``sari read TARGET``: read a file, a symbol, a line range, or a diff against git."""

from __future__ import annotations

import argparse
from typing import Any

from sari_core.cli.workspace_call import add_common, given, run_call
from sari_core.kernel.commands import CommandRegistry

ARGUMENTS = {
    "mode": "mode", "offset": "offset", "limit": "limit", "max_preview_chars": "max_preview_chars",
    "path": "path", "include_context": "include_context", "start_line": "start_line",
    "end_line": "end_line", "context_lines": "context_lines", "against": "against",
    "session_id": "session_id",
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="a path (file, snippet, diff_preview) or a symbol name")
    parser.add_argument("--mode",
                        choices=("file", "symbol", "snippet", "diff_preview", "outline"),
                        default="file", help="what to read (default: file)")
    parser.add_argument("--offset", type=int, default=None,
                        help="first line to show, from 1")
    parser.add_argument("--limit", type=int, default=None, help="lines to return at most")
    parser.add_argument("--max-preview-chars", type=int, default=None,
                        help="hard cap on the characters returned")
    parser.add_argument("--path", default=None, help="symbol: the file or folder to look in")
    parser.add_argument("--include-context", action="store_true", default=None,
                        help="symbol: add leading comments/decorators and a few lines around")
    parser.add_argument("--start-line", type=int, default=None, help="snippet: first line")
    parser.add_argument("--end-line", type=int, default=None, help="snippet: last line")
    parser.add_argument("--context-lines", type=int, default=None,
                        help="snippet: lines of context on each side")
    parser.add_argument("--against", choices=("HEAD", "INDEX", "WORKTREE"), default=None,
                        help="diff_preview: the baseline (default HEAD)")
    add_common(parser)


def render(response: dict[str, Any]) -> None:
    meta = response.get("meta", {})
    if response.get("mode") == "diff_preview":
        print(response.get("text", ""))
        if response.get("diff"):
            print(response["diff"], end="")
        return
    start = meta.get("start_line", 1)
    end = meta.get("end_line", 0)
    print(f"{meta.get('path', response.get('target'))}: lines {start}-{end} of "
          f"{meta.get('total_lines', '?')}" + (" (truncated)" if meta.get("truncated") else ""))
    width = len(str(max(end, 1)))
    for number, line in enumerate(response.get("text", "").split("\n"), start):
        if number > end and not line:
            break
        print(f"{number:>{width}} | {line}")
    if meta.get("next_offset") is not None:
        print(f"... more: --offset {meta['next_offset']}")


def run(args: argparse.Namespace) -> int:
    arguments = {"target": args.target, **given(args, ARGUMENTS)}
    return run_call(args, lambda kernel: kernel.execute_read(arguments), render)


def register(registry: CommandRegistry) -> None:
    registry.add("read", "Read a file, a symbol, a line range or a diff (modes of the read tool).",
                 configure, run)
