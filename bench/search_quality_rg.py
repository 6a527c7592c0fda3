"""The ripgrep arms of ``bench/search_quality.py``: what an agent gets from ``rg`` alone.

``rg -c -i -F WORD`` (its defaults otherwise) once per word of the query. "rg words" ranks
files by BM25 over those counts (k1 = 1.2, b = 0.75): a word's matching lines in a file
are its term frequency, the files it matches its document frequency, a file's length its
line count (``rg -c ""``, once per tree), so a rare word counts for more than a common one
and a long file does not win by length alone. "rg best word" ranks files by the count of
one word alone, the word that ranks the answer highest: an oracle (no agent knows which
word is best), the upper bound of a one-word grep.
"""

from __future__ import annotations

import functools
import math
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

K1 = 1.2
B = 0.75

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


@functools.cache
def line_counts(rg: str, root: Path) -> dict[str, int]:
    """Lines per file rg searches in ``root`` (its defaults: ignored and hidden files out)."""
    return rg_counts(rg, root, "")


def ranked_files(scores: dict[str, float] | dict[str, int]) -> list[str]:
    return sorted(scores, key=lambda path: (-scores[path], path))


def bm25_scores(per_word: list[dict[str, int]], lengths: dict[str, int]) -> dict[str, float]:
    """Okapi BM25 of each file for the words whose per-file counts are ``per_word``."""
    files = max(len(lengths), 1)
    average = sum(lengths.values()) / files if lengths else 1.0
    scores: dict[str, float] = {}
    for counts in per_word:
        idf = math.log(1 + (files - len(counts) + 0.5) / (len(counts) + 0.5))
        for path, count in counts.items():
            norm = 1 - B + B * lengths.get(path, average) / (average or 1.0)
            scores[path] = scores.get(path, 0.0) + idf * count * (K1 + 1) / (count + K1 * norm)
    return scores


def rg_ranks(rg: str, root: Path, query: str, rank: Callable[[list[str]], int | None]
             ) -> tuple[int | None, int | None, float]:
    """(rank by BM25 over every word's counts, best rank by one word's count, milliseconds
    of the first word's rg call); ``rank`` places the query's answer in a ranked list of
    files."""
    lengths = line_counts(rg, root)
    per_word: list[dict[str, int]] = []
    best: int | None = None
    one_call = 0.0
    for word in query_words(query):
        started = time.perf_counter()
        counts = rg_counts(rg, root, word)
        if not per_word:
            one_call = (time.perf_counter() - started) * 1000
        per_word.append(counts)
        placed = rank(ranked_files(counts))
        if placed is not None and (best is None or placed < best):
            best = placed
    return rank(ranked_files(bm25_scores(per_word, lengths))), best, one_call
