"""The best definitions of a search by words, ordered again by what they mean.

A query in words and the definition that answers it often share few words: "pick the
reader or writer for the current state" is ``_get_io_object``. The word search ranks its
candidates by the words; among its best ``SEMANTIC_RANKED`` definitions, each score is then
multiplied by ``1 + SEMANTIC * s``, ``s`` the definition's similarity to the query (cosine of
static word embeddings) scaled to 0..1 between the least and the most similar of them, and
each file's chunks are ordered again by it in the places the words gave that file. So
meaning picks which of a file's definitions comes first; it never moves a file, nor brings
in a chunk the words did not find (static embeddings know no code vocabulary: moving files,
"command line interface" put a ``Command`` class above ``cli.py``'s ``main``). The word
search places the files afterwards by the scores the words gave (see
:mod:`sari_core.engine.search.word_search`).

The embeddings are ``wordllama``'s (its 256-dimension ``l2_supercat`` model, its weights
inside the wheel: nothing is downloaded), installed with the ``semantic`` extra
(``pip install 'sari-core[semantic]'``). Without it this step does nothing. A definition's
text is its name read as words and its first ``TEXT_LINES`` lines; its vector is computed
the first time it is a candidate and kept until the index changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from sari_core.engine.index.index_memo import file_lines, memo_for, remembered_many
from sari_core.engine.index.store import IndexStore

__all__ = ["SEMANTIC", "SEMANTIC_RANKED", "available", "by_meaning"]

SEMANTIC = 0.3
SEMANTIC_RANKED = 20
TEXT_LINES = 13
HELD_VECTORS = 50_000  # 1 KB each
_NOT_DEFINITIONS = frozenset(("text",))
_CAMEL = re.compile(r"([a-z])([A-Z])")


@lru_cache(maxsize=1)
def _model() -> Any | None:
    """The embedding model, loaded once from the installed wheel; None when not installed."""
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        return None
    if wordllama.__file__ is None:  # a namespace package: not the wheel
        return None
    # The weights and tokenizer ship inside the package; a download is refused.
    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


def available() -> bool:
    """Whether the embedding model is installed (the ``semantic`` extra)."""
    return _model() is not None


def _name_words(scope: str) -> str:
    return _CAMEL.sub(r"\1 \2", scope).replace("_", " ").replace(".", " ")


def _texts(store: IndexStore, rows: list[tuple]) -> list[str]:
    lines_of = file_lines(store, (row[1] for row in rows))
    out = []
    for row in rows:
        lines = lines_of.get(row[1], [])
        line, end_line, scope = row[4], row[5], row[6]
        body = " ".join(lines[line - 1:min(end_line, line + TEXT_LINES - 1)])
        out.append(f"{_name_words(scope)} {body}")
    return out


def by_meaning(store: IndexStore, query: str, scored: Sequence[tuple[float, str, int, tuple]],
               order: Any) -> list[tuple[float, str, int, tuple]]:
    """``scored`` (negated score, path, line, chunk row; best first; each file's chunks in
    ``order``) with its best definitions' scores multiplied by ``1 + SEMANTIC * s``, each
    file's chunks sorted again by ``order`` in the places the file had; as it is when the
    model is not installed."""
    model = _model()
    top = [entry for entry in scored[:SEMANTIC_RANKED] if entry[3][7] not in _NOT_DEFINITIONS]
    if model is None or len(top) < 2:
        return list(scored)
    import numpy as np

    rows = {entry[3][0]: entry[3] for entry in top}
    vectors = remembered_many(
        memo_for(store, store.reader), "chunk vectors", list(rows),
        lambda missing: dict(zip(missing, model.embed(_texts(store, [rows[i] for i in missing]),
                                                      norm=True), strict=True)),
        HELD_VECTORS)
    wanted = model.embed([query], norm=True)[0]
    similarity = {rowid: float(np.dot(vector, wanted)) for rowid, vector in vectors.items()}
    low, high = min(similarity.values()), max(similarity.values())
    if high <= low:
        return list(scored)
    out = [(entry[0] * (1 + SEMANTIC * (similarity[entry[3][0]] - low) / (high - low)), *entry[1:])
           if entry[3][0] in similarity else entry for entry in scored]
    # Each file keeps the places its chunks had; only its own chunks are ordered again
    # (those of a file none of whose scores changed are in order already).
    changed = {entry[1] for entry in top}
    mine: dict[str, list] = {}
    for entry in out:
        if entry[1] in changed:
            mine.setdefault(entry[1], []).append(entry)
    for entries in mine.values():
        entries.sort(key=order)
    taken = {path: iter(entries) for path, entries in mine.items()}
    return [next(taken[entry[1]]) if entry[1] in taken else entry for entry in out]
