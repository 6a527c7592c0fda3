"""``sari search`` on a never-indexed workspace: ripgrep starts before Sari loads.

The first search of a workspace is answered from a scan (ripgrep) while the index is
not built yet. Loading the kernel, its plugins and the engine takes about as long as the
scan itself, so the command starts the scan's exact ``rg`` first and loads meanwhile;
the scan then takes that process's output (see :mod:`sari_core.engine.scan.rg_command`).
Only what the command line says is used to predict the scan: a search whose kind, case or
workspace the kernel would scan differently starts its own ``rg`` as usual, and the early
one is stopped. An indexed workspace is answered from its index: nothing starts early.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sari_core.engine.scan import rg_command

SCANNED_KINDS = (None, "text", "regex")  # what a text scan answers (symbols scan otherwise)


def start_early_scan(args: argparse.Namespace, root: Path, excludes: list[str]) -> bool:
    """Start the ``rg`` a search of ``args.query`` in ``root`` will run, when the workspace
    has no index yet. :return: whether it started."""
    from sari_core.engine.index.schema import default_index_path

    if args.kind not in SCANNED_KINDS or not rg_command.scannable(args.query):
        return False
    binary = rg_command.ripgrep()
    if binary is None or default_index_path([root]).exists():
        return False
    rg_command.start_early(rg_command.with_pattern(
        rg_command.lines_command(binary, excludes), args.query, regex=args.kind == "regex",
        case_sensitive=bool(args.case_sensitive), roots=[str(root)]))
    return True
