"""``sari replay TRANSCRIPT.jsonl ...``: what chosen policies would have done to real sessions.

Each recorded call of the client's own tools goes through Sari's hooks (the path the
installed hooks take) with only the named policies, or the installed ones, on the
workspace at the session's commit (a private copy; the workspace is never written), and
the model is shown what the client shows after the hook's answer. Prints, per session and
in total, the calls compared and their share, tokens, turns, refusals, follow-up reads
and the turn-aware cost, recorded versus through Sari.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sari_core.engine.index.progress import wants_progress
from sari_core.kernel.commands import CommandRegistry
from sari_core.replay import TranscriptError, read_transcript, replay_all, totals
from sari_core.replay.report import ProgressBar, as_json, as_table

PROGRESS_FROM_CALLS = 50  # shorter runs finish before a bar would help


def policy_set(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    return [] if names == ["none"] else names


def installed_policies() -> list[str]:
    """The plugins a server would load: every installed one the allow and deny lists let
    through (``SARI_PLUGINS``, ``SARI_DISABLE_PLUGINS``)."""
    from sari_core.kernel.loading import (
        ALLOW_ENV,
        DENY_ENV,
        env_names,
        installed_entry_points,
        plugin_enabled,
    )

    allow, deny = env_names(ALLOW_ENV), set(env_names(DENY_ENV) or [])
    return [ep.name for ep in installed_entry_points() if plugin_enabled(ep.name, allow, deny)]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcripts", nargs="+", type=Path, metavar="TRANSCRIPT.jsonl",
                        help="Claude Code session transcripts (~/.claude/projects/*/*.jsonl)")
    parser.add_argument("--workspace", "-w", type=Path, default=Path.cwd(),
                        help="the repository the sessions worked on (default: the current "
                             "folder); only read")
    parser.add_argument("--policies", type=policy_set, default=None, metavar="A,B",
                        help="the policy plugins to replay with, comma-separated "
                             "(e.g. budget,aggregation; 'none' for Sari core alone; default: "
                             "the installed plugins a server would load)")
    parser.add_argument("--compare", nargs="+", type=policy_set, metavar="A,B",
                        help="several policy sets side by side, e.g. --compare "
                             "budget,aggregation budget,refgate")
    parser.add_argument("--commit", metavar="REV",
                        help="replay every session at this commit (default: the last commit "
                             "before each session started)")
    parser.add_argument("--as-is", action="store_true",
                        help="replay on the workspace's files as they are now")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    policy_sets = [*([args.policies] if args.policies is not None else []),
                   *(args.compare or [])] or [installed_policies()]
    workspace = args.workspace.expanduser().resolve()
    if not workspace.is_dir():
        print(f"sari replay: workspace {workspace} is not a folder", file=sys.stderr)
        return 2
    try:
        transcripts = [read_transcript(path) for path in args.transcripts]
    except TranscriptError as exc:
        print(f"sari replay: {exc}", file=sys.stderr)
        return 1
    calls = sum(len(t.calls) for t in transcripts) * len(policy_sets)
    bar = ProgressBar(calls, wants_progress(None) and calls >= PROGRESS_FROM_CALLS)
    try:
        results = replay_all(transcripts, policy_sets, workspace, commit=args.commit,
                             as_is=args.as_is, on_call=bar.advance)
    except ValueError as exc:
        bar.close()
        print(f"sari replay: {exc}", file=sys.stderr)
        return 2
    bar.close()
    rows = totals(results, policy_sets)
    if args.json:
        print(json.dumps(as_json(results, rows), indent=2))
    else:
        sys.stdout.write(as_table(results, rows))
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("replay", "Replay Claude Code session transcripts through Sari's hooks with "
                 "chosen policies: tokens, turns, refusals and cost, recorded versus through "
                 "Sari.", configure, run)
