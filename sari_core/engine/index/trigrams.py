"""The trigram index's query for a literal (the ``fts`` table of the index schema)."""

from __future__ import annotations

TRIGRAM = 3
MAX_TRIGRAMS = 48  # a longer literal is selected by this many of its trigrams, spread out


def phrase(query: str) -> str:
    """The FTS5 query selecting the files that may contain ``query`` (three characters or
    more): every distinct trigram of it, AND-ed. The index has no positions, so this is a
    superset: the caller checks each candidate."""
    grams = list(dict.fromkeys(query[i:i + TRIGRAM] for i in range(len(query) - TRIGRAM + 1)))
    if len(grams) > MAX_TRIGRAMS:
        step = len(grams) / MAX_TRIGRAMS
        grams = [grams[int(i * step)] for i in range(MAX_TRIGRAMS)] + [grams[-1]]
    return "(" + " AND ".join('"' + gram.replace('"', '""') + '"' for gram in grams) + ")"


def selects(query: str) -> bool:
    """Whether the trigram index can select the files holding ``query``."""
    return len(query) >= TRIGRAM and "\x00" not in query
