"""A query of words answered from a scan, while the first index is being built.

The word index ranks chunks by BM25; a scan has no index, so it does what it can with
ripgrep alone: one pass for any of the query's word stems (as substrings, since code
glues words together: ``lookup``, ``fileName``), then files ranked by how many of the
query's words their matching lines hold, definitions and code before prose and tests.
Coarser than the index, but a sentence is never answered "no matches" while its words
are on disk.
"""

from __future__ import annotations

import re

from sari_core.engine.scan.scan import ScannedFile, WorkspaceScan, definition_on
from sari_core.engine.search.hit_ranking import Hit, is_test, is_third_party, stub_penalty
from sari_core.engine.search.text_match import FileHit
from sari_core.engine.search.word_search import is_prose, query_terms, stem
from sari_core.models import SearchCall

# A stem this short matches inside too many unrelated words to count as the word.
_SHORTEST_STEM = 3


def query_stems(query: str) -> list[str]:
    """The stems a scan looks for: the query's words (filler left out), stemmed; none
    when fewer than two remain (one word is a literal, which the scan already tried)."""
    stems = list(dict.fromkeys(stem(term) for term in query_terms(query)))
    kept = [word for word in stems if len(word) >= _SHORTEST_STEM]
    return kept if len(kept) >= 2 else []


def scan_words(scan: WorkspaceScan, call: SearchCall) -> tuple[list[Hit], int]:
    """Lines holding the most of ``call``'s words, from the files holding the most of
    them; and how many files hold any."""
    stems = query_stems(call.query)
    if not stems:
        return [], 0
    pattern = "|".join(re.escape(word) for word in stems)
    found = scan.lines(pattern, regex=True, case_sensitive=False, glob=call.path_glob)
    ranked = sorted(((_file_score(item, stems), number, item)
                     for number, item in enumerate(found, 1)), key=lambda entry: -entry[0])
    hits: list[Hit] = []
    for score, number, item in ranked[:max(call.limit, 10)]:
        if score <= 0:
            break
        hits.extend(_best_lines(item, FileHit(-number, item.root, item.rel), stems, score))
    hits.sort(key=lambda hit: -hit.score)
    return hits, len(found)


def _held(text: str, stems: list[str]) -> int:
    lowered = text.lower()
    return sum(1 for word in stems if word in lowered)


def _file_score(item: ScannedFile, stems: list[str]) -> float:
    """The share of the query's words the file's matching lines hold, with the same
    penalties the index's ranking gives prose, tests, vendored code and stubs."""
    covered = _held(" ".join(text for _, text in item.lines), stems) / len(stems)
    penalty = (0.3 if is_prose(item.rel) else 0.0) + (0.2 if is_test(item.rel) else 0.0) \
        + (0.3 if is_third_party(item.rel) else 0.0) + stub_penalty(item.rel)
    return covered - penalty


def _best_lines(item: ScannedFile, hit: FileHit, stems: list[str], file_score: float
                ) -> list[Hit]:
    """The file's lines holding the most of the words (a definition's line first)."""
    scored = []
    for number, text in item.lines:
        held = _held(text, stems)
        definition = None if is_prose(item.rel) else definition_on(text)
        scored.append((held + (0.5 if definition else 0.0), number, text, definition))
    best = max(score for score, *_ in scored)
    return [Hit(hit, number, text, round(file_score * 10 + score, 2),
                definition[1] if definition else "text", definition[0] if definition else None,
                0, number)
            for score, number, text, definition in scored if score == best][:2]
