"""Replay real Claude Code sessions that public repositories keep beside their commits.

Some session-recording tools push each agent session to a branch of the repository it
worked on (``entire/checkpoints/v1``: ``<id[:2]>/<id[2:]>/<n>/full.jsonl`` is a session's
transcript, ``metadata.json`` beside it names the agent and the session). The manifest
``bench/data/real_sessions.json`` records, for every session used, the repository, the
commit of that branch and the transcript's path. The transcripts are not committed here:
``rebuild`` takes them, and the repository's code, from a local copy of each repository.

    # once: choose sessions from local copies (git folders) of the repositories
    python bench/real_sessions.py select --copy owner/name=GIT_DIR ... [--per-repo 3]
    # rebuild transcripts and workspaces from the same copies, then replay them
    python bench/real_sessions.py rebuild --copy owner/name=GIT_DIR ... --into DIR
    python bench/real_sessions.py replay --into DIR [--policies A,B] [--json PATH]

``replay`` runs ``sari replay``'s own code on every session (each on its repository at the
session's commit) and prints, per session, the calls compared and their share, the tokens
and the turn-aware cost recorded and through Sari, the refusals and the follow-up reads
charged. It then does the fraction check: of the sessions' native ``Read`` and ``Grep``
calls, how many Sari answered with less than the session was shown (narrowed or refused),
and how many of those were right: no later call of the session read, grepped or edited a
withheld line (the replay's follow-up rule, ``sari_core.replay.withheld``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

MANIFEST = Path(__file__).resolve().parent / "data" / "real_sessions.json"
BRANCH = "refs/heads/entire/checkpoints/v1"
POLICIES = ("budget", "relevance", "aggregation", "refgate")
MIN_READS = 8  # a session with fewer native reads says little about reads
MAX_BYTES = 2_500_000  # larger transcripts replay slowly on two cores
NATIVE_READS = ("Read", "Grep")


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True,
                          check=False)


def _copies(pairs: Sequence[str]) -> dict[str, Path]:
    copies = {}
    for pair in pairs:
        name, _, folder = pair.partition("=")
        if not folder:
            raise SystemExit(f"--copy takes owner/name=GIT_DIR, not {pair!r}")
        copies[name] = Path(folder).expanduser().resolve()
    return copies


def _transcripts(git_dir: Path, tip: str) -> Iterable[tuple[str, int]]:
    listing = _git(git_dir, "ls-tree", "-r", "-l", tip).stdout.decode().splitlines()
    for row in listing:
        head, _, path = row.partition("\t")
        size = head.split()[3] if len(head.split()) > 3 else ""
        if path.endswith("/full.jsonl") and size.isdigit():  # absent blobs list no size
            yield path, int(size)


def select(copies: dict[str, Path], per_repo: int) -> list[dict[str, Any]]:
    """Claude Code sessions with at least ``MIN_READS`` native reads: the latest transcript
    of each session, the ``per_repo`` with the most reads under ``MAX_BYTES`` per repo."""
    from sari_core.replay import TranscriptError, read_transcript

    chosen: list[dict[str, Any]] = []
    for repository, git_dir in sorted(copies.items()):
        tip = _git(git_dir, "rev-parse", BRANCH).stdout.decode().strip()
        best: dict[str, dict[str, Any]] = {}
        for path, size in _transcripts(git_dir, tip):
            if size > MAX_BYTES:
                continue
            meta_text = _git(git_dir, "show", f"{tip}:{path.rsplit('/', 1)[0]}/metadata.json")
            meta = json.loads(meta_text.stdout or b"{}")
            if meta.get("agent") != "Claude Code":
                continue
            with tempfile.TemporaryDirectory(prefix="sari-real-") as folder:
                scratch = Path(folder) / "full.jsonl"
                scratch.write_bytes(_git(git_dir, "show", f"{tip}:{path}").stdout)
                try:
                    transcript = read_transcript(scratch)
                except TranscriptError:
                    continue  # a checkpoint with no conversation in it
            names = Counter(call.name for call in transcript.calls)
            entry = {"repository": repository, "commit": tip, "path": path,
                     "session_id": transcript.session_id, "branch": transcript.git_branch,
                     "started": transcript.started, "calls": len(transcript.calls),
                     "reads": names["Read"], "greps": names["Grep"]}
            known = best.get(transcript.session_id)
            if known is None or entry["calls"] > known["calls"]:
                best[transcript.session_id] = entry
        ranked = sorted((e for e in best.values() if e["reads"] >= MIN_READS),
                        key=lambda e: (-e["reads"], e["path"]))
        chosen.extend(ranked[:per_repo])
    return chosen


def rebuild(entries: Sequence[dict[str, Any]], copies: dict[str, Path], into: Path) -> None:
    """Each transcript from its repository's copy, and each repository as a workspace:
    a git repository borrowing the copy's objects, with its branches (not the sessions')."""
    for repository in sorted({e["repository"] for e in entries}):
        git_dir = copies.get(repository)
        if git_dir is None:
            raise SystemExit(f"no --copy given for {repository}")
        workspace = into / "workspaces" / repository.replace("/", "+")
        if not (workspace / ".git").is_dir():
            workspace.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "init", "-q", str(workspace)], check=True)
            alternates = workspace / ".git" / "objects" / "info" / "alternates"
            alternates.write_text(str(git_dir / "objects") + "\n")
            subprocess.run(["git", "-C", str(workspace), "fetch", "-q", "--no-tags",
                            str(git_dir), "refs/heads/*:refs/heads/*",
                            "^refs/heads/entire/*"], check=True)
            head = _git(git_dir, "rev-parse", "HEAD").stdout.decode().strip()
            subprocess.run(["git", "-C", str(workspace), "checkout", "-q", "--detach", head],
                           check=True)
    for entry in entries:
        git_dir = copies[entry["repository"]]
        target = _transcript_path(into, entry)
        target.parent.mkdir(parents=True, exist_ok=True)
        done = _git(git_dir, "show", f"{entry['commit']}:{entry['path']}")
        if done.returncode != 0:
            raise SystemExit(f"{entry['repository']}@{entry['commit'][:12]}:{entry['path']}: "
                             f"{done.stderr.decode().strip()}")
        target.write_bytes(done.stdout)


def _transcript_path(into: Path, entry: dict[str, Any]) -> Path:
    return into / "transcripts" / entry["repository"].replace("/", "+") / \
        f"{entry['session_id']}.jsonl"


def replay(entries: Sequence[dict[str, Any]], into: Path,
           policies: Sequence[str]) -> dict[str, Any]:
    from sari_core.replay import read_transcript, replay_all
    from sari_core.replay.report import session_json

    sessions = []
    for entry in entries:
        transcript = read_transcript(_transcript_path(into, entry))
        workspace = into / "workspaces" / entry["repository"].replace("/", "+")
        [result] = replay_all([transcript], [list(policies)], workspace)
        row = session_json(result)
        names = Counter(call.name for call in transcript.calls)
        row.update(repository=entry["repository"], native_reads=names["Read"],
                   native_greps=names["Grep"])
        sessions.append(row)
        print(f"{entry['repository']:<32} {entry['session_id'][:8]} "
              f"{row['compared']}/{row['calls_recorded']}", file=sys.stderr)
    return {"policies": list(policies), "sessions": sessions, "fraction": fraction(sessions)}


def fraction(sessions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Of the native Read and Grep calls, those the hooks acted on (denied, or narrowed to
    fewer lines than the session was shown) and those they were right on (no later call
    of the session read, grepped or edited a line they withheld)."""
    calls = sum(s["native_reads"] + s["native_greps"] for s in sessions)
    actions = [a for s in sessions for a in s["actions"] if a["tool"] in NATIVE_READS]
    right = [a for a in actions if a["needed_at"] is None]
    return {"native_calls": calls, "acted_on": len(actions), "right": len(right),
            "by_tool": {tool: {"acted_on": sum(a["tool"] == tool for a in actions),
                               "right": sum(a["tool"] == tool for a in right)}
                        for tool in NATIVE_READS},
            "by_kind": {kind: {"acted_on": sum(a["kind"] == kind for a in actions),
                               "right": sum(a["kind"] == kind for a in right)}
                        for kind in ("refused", "narrowed")},
            "withheld_lines": sum(a["withheld"] for a in actions),
            "withheld_lines_needed": sum(a["withheld"] for a in actions if a["needed_at"])}


def print_table(data: dict[str, Any]) -> None:
    print(f"policies: {','.join(data['policies'])}")
    print(f"{'repository':<32} {'session':<8} {'compared':>13} {'then':>8} {'Sari':>8} "
          f"{'refused':>7} {'follow':>6} {'uncached':>8} {'cached':>7}")
    for s in data["sessions"]:
        ratio = s["ratio"]
        shown = [f"{ratio[k]:.2f}x" if ratio[k] is not None else "-"
                 for k in ("uncached", "cached")]
        print(f"{s['repository']:<32} {s['session_id'][:8]:<8} "
              f"{s['compared']:>4}/{s['calls_recorded']:<4} {s['coverage']:>4.0%} "
              f"{s['then']['result_tokens']:>8,} {s['sari']['result_tokens']:>8,} "
              f"{len(s['refusals']):>7} {s['follow_ups']:>6} {shown[0]:>8} {shown[1]:>7}")
    sessions = data["sessions"]
    then = sum(s["then"]["result_tokens"] for s in sessions)
    sari = sum(s["sari"]["result_tokens"] for s in sessions)
    compared = sum(s["compared"] for s in sessions)
    recorded = sum(s["calls_recorded"] for s in sessions)
    uncached = sum(s["sari"]["uncached"] for s in sessions) / \
        sum(s["then"]["uncached"] for s in sessions)
    cached = sum(s["sari"]["cached"] for s in sessions) / \
        sum(s["then"]["cached"] for s in sessions)
    print(f"{'total':<41} {compared:>4}/{recorded:<4} {compared / recorded:>4.0%} {then:>8,} "
          f"{sari:>8,} {sum(len(s['refusals']) for s in sessions):>7} "
          f"{sum(s['follow_ups'] for s in sessions):>6} {uncached:>7.2f}x {cached:>6.2f}x")
    f = data["fraction"]
    print(f"native Read/Grep calls: {f['native_calls']}; the hooks acted on {f['acted_on']} "
          f"({f['acted_on'] / max(f['native_calls'], 1):.1%}); right (no withheld line "
          f"needed later): {f['right']} ({f['right'] / max(f['acted_on'], 1):.1%})")
    for label, split in (("tool", f["by_tool"]), ("kind", f["by_kind"])):
        print(f"  by {label}: " + ", ".join(
            f"{key} {v['right']}/{v['acted_on']} right" for key, v in split.items()))
    print(f"  withheld lines {f['withheld_lines']:,}, of them needed later "
          f"{f['withheld_lines_needed']:,}")


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    chooser = sub.add_parser("select", help="choose sessions; write the manifest")
    chooser.add_argument("--copy", action="append", default=[], metavar="OWNER/NAME=GIT_DIR")
    chooser.add_argument("--per-repo", type=int, default=3)
    builder = sub.add_parser("rebuild", help="transcripts and workspaces from local copies")
    builder.add_argument("--copy", action="append", default=[], metavar="OWNER/NAME=GIT_DIR")
    builder.add_argument("--into", type=Path, required=True)
    runner = sub.add_parser("replay", help="replay the rebuilt sessions")
    runner.add_argument("--into", type=Path, required=True)
    runner.add_argument("--policies", default=",".join(POLICIES))
    runner.add_argument("--json", type=Path, metavar="PATH")
    for command in (chooser, builder, runner):
        command.add_argument("--manifest", type=Path, default=MANIFEST,
                             help=f"the sessions' coordinates (default: {MANIFEST.name})")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.command == "select":
        entries = select(_copies(args.copy), args.per_repo)
        args.manifest.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
        print(f"{len(entries)} sessions from {len({e['repository'] for e in entries})} "
              f"repositories written to {args.manifest}")
        return 0
    entries = json.loads(args.manifest.read_text(encoding="utf-8"))
    if args.command == "rebuild":
        rebuild(entries, _copies(args.copy), args.into.resolve())
        return 0
    policies = [name for name in args.policies.split(",") if name and name != "none"]
    data = replay(entries, args.into.resolve(), policies)
    if args.json:
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print_table(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
