"""The rounds ``bench/cache_sim.py`` plays: a project's commits, in a bounded context window.

Each commit is one round of an agent working through a real project's history
(``commit_rounds/*.jsonl``, written by ``bench/commit_rounds.py``): the files it adds or
modifies are Active that round, and every file seen so far and not deleted is in the context,
as long as the context fits the window. A token is ``bytes / 4``.

**The window.** The context may not exceed ``WINDOW_TOKENS`` (200k, Claude's context window).
When it would, files are evicted least recently changed first (ties by path) until it fits;
this round's files are never evicted. An evicted file comes back when a commit changes it.
Eviction is the agent's, not the tier policy's: every policy is given the same context.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CHARS_PER_TOKEN = 4
WINDOW_TOKENS = 200_000
EVICT_TO = 0.75


@dataclass
class Round:
    changed: list[str]            # files added or modified by the commit: Active
    context: dict[str, int]       # every file in the context -> version
    last_changed: dict[str, int]  # every file in the context -> the round it last changed in


@dataclass
class History:
    repo: str
    rounds: list[Round]
    tokens: dict[tuple[str, int], int]   # (path, version) -> tokens

    def tokens_of(self, round_: Round, name: str) -> int:
        return self.tokens[(name, round_.context[name])]

    def unchanged_tokens(self, previous: Round | None, round_: Round) -> int:
        """Tokens of the files in the context now and, at the same version, the round before.

        No ordering of the context can serve more than these from a cache.
        """
        if previous is None:
            return 0
        return sum(self.tokens_of(round_, name) for name, version in round_.context.items()
                   if previous.context.get(name) == version)


def load_history(path: Path, window: int = WINDOW_TOKENS,
                 evict_to: float = EVICT_TO) -> History:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    versions: dict[str, int] = {}
    last_changed: dict[str, int] = {}
    live: dict[str, int] = {}          # in the context -> tokens
    tokens: dict[tuple[str, int], int] = {}
    rounds = []
    for number, line in enumerate(lines[1:]):
        changed = []
        for entry in json.loads(line)["files"]:
            name = entry["path"]
            if entry["status"] == "D":
                live.pop(name, None)
                continue
            versions[name] = versions.get(name, 0) + 1
            size = -(-int(entry["bytes"]) // CHARS_PER_TOKEN)
            tokens[(name, versions[name])] = live[name] = size
            last_changed[name] = number
            changed.append(name)
        _evict(live, last_changed, set(changed), window, int(window * evict_to))
        rounds.append(Round(sorted(set(changed)), {name: versions[name] for name in live},
                            {name: last_changed[name] for name in live}))
    return History(header.get("repo", path.stem), rounds, tokens)


def _evict(live: dict[str, int], last_changed: dict[str, int], keep: set[str],
           window: int, down_to: int) -> None:
    total = sum(live.values())
    if total <= window:
        return
    for name in sorted(live, key=lambda name: (last_changed[name], name)):
        if total <= down_to:
            return
        if name not in keep:
            total -= live.pop(name)
