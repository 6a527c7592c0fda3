"""``sari gate check FILE...``: the gate's validators for any shell, CI job or editor hook.

Validates the files as they are on disk with the workspace's configured validators
and prints the errors at gating severities. Exit status: 0 none, 1 errors found,
3 a validator could not run and ``failure_mode`` is ``closed`` (with ``open`` it is
reported on stderr and does not change the status).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from sari_core import SettingsError, canonical_root
from sari_lspgate.diagnostics import Diagnostic, gating
from sari_lspgate.settings import load_settings
from sari_lspgate.summary import summarize

EXIT_CLEAN, EXIT_ERRORS, EXIT_UNAVAILABLE = 0, 1, 3


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="gate_command", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate files; exit 1 when they have errors")
    check.add_argument("files", nargs="+", metavar="FILE", help="files to validate")
    check.add_argument("--root", default=None,
                       help="workspace root (settings and servers); default: current folder")
    check.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from sari_lspgate.runner import ChangeTarget, ValidationRunner

    root = Path(canonical_root(args.root or os.getcwd()))
    try:
        settings = load_settings(root)
    except SettingsError as exc:
        print(f"sari gate: {exc}", file=sys.stderr)
        return 2
    runner = ValidationRunner(settings, [root])
    targets: list[ChangeTarget] = []
    problems: list[str] = []
    for name in args.files:
        abs_path = Path(os.path.realpath(Path(name) if Path(name).is_absolute()
                                         else Path.cwd() / name))
        try:
            text = abs_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{name}: cannot read: {exc}")
            continue
        display = runner.display_path(abs_path)
        if runner.covers(display):
            targets.append(ChangeTarget(root=runner.root_of(abs_path), abs_path=abs_path,
                                        path=display, old_text=None, new_text=text,
                                        old_known=False))
        else:
            problems.append(f"{display}: no validator covers this file")
    try:
        results = runner.check(targets) if targets else []
    finally:
        runner.close()
    found: list[Diagnostic] = sorted({d for r in results for d in gating(
        r.current, settings.gate_severities)})
    unavailable = [r for r in results if r.status != "ok"]
    if args.json:
        print(json.dumps(_report(found, results, settings.max_examples), indent=2))
    else:
        for diagnostic in found:
            code = f" {diagnostic.code}" if diagnostic.code else ""
            print(f"{diagnostic.path}:{diagnostic.line}:{diagnostic.column}: "
                  f"{diagnostic.severity} [{diagnostic.source}{code}] {diagnostic.headline}")
        summary = summarize(found, settings.max_examples, lead="error")
        print(summary.text.splitlines()[0] if found else
              f"no errors in {len(targets)} file(s)")
    for problem in problems:
        print(f"sari gate: {problem}", file=sys.stderr)
    for result in unavailable:
        print(f"sari gate: LSP_UNAVAILABLE: {result.reason} "
              f"(fail-{settings.failure_mode})", file=sys.stderr)
    if found:
        return EXIT_ERRORS
    if unavailable and settings.failure_mode == "closed":
        return EXIT_UNAVAILABLE
    return EXIT_CLEAN


def _report(found: list[Diagnostic], results: list[Any], max_examples: int) -> dict[str, Any]:
    return {
        "ok": not found,
        "summary": summarize(found, max_examples, lead="error").to_json(),
        "diagnostics": [d.to_json() for d in found],
        "validators": [r.to_json() for r in results],
    }
