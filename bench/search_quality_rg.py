"""The ripgrep arms of ``bench/search_quality.py``: what an agent gets from ``rg`` alone.

``rg -c -i -F WORD`` (its defaults otherwise) once per word of the query, files ranked by
the sum of the counts ("rg words"), and by the count of the one word that ranks the answer
highest ("rg best word": an oracle, no agent knows which word is best).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

# Words an agent's sentence carries that say nothing about the code (rg would count them).
STOP_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get",
    "has", "have", "how", "in", "into", "is", "it", "its", "of", "on", "or", "the", "their",
    "them", "then", "there", "these", "this", "to", "under", "up", "was", "what", "when",
    "where", "which", "while", "who", "why", "will", "with", "like", "before", "after"))


def query_words(query: str) -> list[str]:
    words = [word.lower() for word in re.findall(r"[A-Za-z0-9_]+", query)]
    kept = [word for word in words if len(word) >= 3 and word not in STOP_WORDS]
    return list(dict.fromkeys(kept or words))


def rg_binary() -> str | None:
    beside = Path(sys.executable).with_name("rg")
    return str(beside) if beside.exists() else shutil.which("rg")


def rg_counts(rg: str, root: Path, word: str) -> dict[str, int]:
    """Matching lines per file for ``word`` (rg -c -i -F, its defaults otherwise)."""
    done = subprocess.run([rg, "-c", "-i", "-F", "--no-messages", "--", word, "."], cwd=root,
                          capture_output=True, text=True, check=False)
    counts = {}
    for line in done.stdout.splitlines():
        path, _, count = line.rpartition(":")
        counts[path.removeprefix("./")] = int(count)
    return counts


def ranked_files(counts: dict[str, int]) -> list[str]:
    return sorted(counts, key=lambda path: (-counts[path], path))


def rg_ranks(rg: str, root: Path, query: str, rank: Callable[[list[str]], int | None]
             ) -> tuple[int | None, int | None]:
    """(rank by all words' counts, best rank by one word's count); ``rank`` places the
    query's answer in a ranked list of files."""
    total: dict[str, int] = {}
    best: int | None = None
    for word in query_words(query):
        counts = rg_counts(rg, root, word)
        for path, count in counts.items():
            total[path] = total.get(path, 0) + count
        placed = rank(ranked_files(counts))
        if placed is not None and (best is None or placed < best):
            best = placed
    return rank(ranked_files(total)), best
