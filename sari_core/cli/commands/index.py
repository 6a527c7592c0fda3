"""``sari index [PATH]``: build or refresh a workspace's index (incremental)."""

from __future__ import annotations

import argparse
import json

from sari_core.cli.workspace_call import configured_or_exit, workspace_root
from sari_core.kernel.commands import CommandRegistry


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="workspace root (default: .)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar (default: only on a terminal)")


def run(args: argparse.Namespace) -> int:
    from sari_core.cli.detached_build import build_lock
    from sari_core.engine import Workspace

    root = workspace_root(args.path)
    with Workspace([root], exclude=configured_or_exit(root), one_call=True) as engine:
        # a build another command left running detached is waited for, then refreshed
        engine.build_guard = lambda: build_lock(engine.index_path, wait=True)
        stats = engine.ensure_index(progress=args.progress)
        status = engine.index_status()
    index_bytes = int(str(status["bytes"]))
    figures = {"root": str(engine.roots[0]), "files": stats.files,
               "text_files": stats.text_files, "indexed": stats.indexed,
               "unchanged": stats.unchanged, "removed": stats.removed,
               "symbols": status["symbols"], "seconds": round(stats.seconds, 3),
               "index_path": status["path"], "index_bytes": index_bytes}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{figures['root']}: {stats.files:,} files ({stats.text_files:,} text), "
          f"{stats.indexed:,} indexed, {stats.unchanged:,} unchanged, {stats.removed:,} removed, "
          f"{status['symbols']:,} symbols in {stats.seconds:.2f}s")
    print(f"index: {status['path']} ({index_bytes / 1e6:.1f} MB)")
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("index", "Build or refresh the search index of a workspace (incremental).",
                 configure, run)
