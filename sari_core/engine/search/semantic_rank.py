"""The best definitions of a search by words, ordered again by what they mean.

A query in words and the definition that answers it often share few words: "pick the
reader or writer for the current state" is ``_get_io_object``. The word search ranks its
candidates by the words; among its best ``SEMANTIC_RANKED`` definitions, each score is then
multiplied by ``1 + SEMANTIC * s``, ``s`` the definition's similarity to the query (cosine of
static word embeddings) scaled to 0..1 between the least and the most similar of them, and
by ``1 + NAME_MEANING * n``, ``n`` the same for a member's qualified name alone read as words
(``Signer.derive_key``: "Signer derive key", scaled among the members) and one half for a
definition that is no member (nor a special method, named for its protocol); each file's chunks are then ordered again in the places the
words gave that file. A member's qualified name says in the fewest words what it does and
whose it is (a method and its namesake in another class: which class the query's nouns mean
is in the name), while in its first lines it is one voice among its signature's and body's
words, which its siblings share. A top-level definition's name is its own words again, which
the word search counts already: its meaning would put ``cart_items`` above
``checkout_amount`` for "sum the price of the cart"; the half keeps members and the rest
level. So meaning picks which of a file's definitions comes first; it never moves a file,
nor brings in a chunk the words did not find (static embeddings know no code vocabulary:
moving files, "command line interface" put a ``Command`` class above ``cli.py``'s
``main``). The word search places the files afterwards by the scores the words gave (see
:mod:`sari_core.engine.search.word_search`).

The embeddings are ``wordllama``'s (its 256-dimension ``l2_supercat`` model, its weights
inside the wheel: nothing is downloaded), installed with the ``semantic`` extra
(``pip install 'sari-core[semantic]'``). Without it this step does nothing. A definition's
text is its name read as words and its first ``TEXT_LINES`` lines; its vectors (that text's
and its name's) are computed the first time it is a candidate and kept until the index
changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from sari_core.engine.index.index_memo import file_lines, memo_for, remembered_many
from sari_core.engine.index.store import IndexStore
from sari_core.engine.search.hit_ranking import within_file_places

__all__ = ["NAME_MEANING", "SEMANTIC", "SEMANTIC_RANKED", "available", "by_meaning"]

SEMANTIC = 0.3
NAME_MEANING = 0.6  # a member's qualified name's closeness alone, on top of its text's
SEMANTIC_RANKED = 20
TEXT_LINES = 13
HELD_VECTORS = 50_000  # of each kind (a text's, a name's), 1 KB each
_NOT_DEFINITIONS = frozenset(("text",))
_CAMEL = re.compile(r"([a-z])([A-Z])")
_SPECIAL_NAME = re.compile(r"\.__\w+__$")


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
               order: Any, memo: Any = None) -> list[tuple[float, str, int, tuple]]:
    """``scored`` (negated score, path, line, chunk row; best first; each file's chunks in
    ``order``) with its best definitions' scores multiplied by ``1 + SEMANTIC * s`` and
    ``1 + NAME_MEANING * n`` (``s``: their text's closeness; ``n``: a member's qualified
    name's, one half for the others), each file's chunks sorted again by ``order`` in the
    places the file had; as it is when the model is not installed."""
    model = _model()
    top = [entry for entry in scored[:SEMANTIC_RANKED] if entry[3][7] not in _NOT_DEFINITIONS]
    if model is None or len(top) < 2:
        return list(scored)
    import numpy as np

    rows = {entry[3][0]: entry[3] for entry in top}
    memo = memo or memo_for(store, store.reader)
    vectors = remembered_many(
        memo, "chunk vectors", list(rows),
        lambda missing: dict(zip(missing, model.embed(_texts(store, [rows[i] for i in missing]),
                                                      norm=True), strict=True)),
        HELD_VECTORS)
    # Members: a dotted scope. A special method's name is its protocol's (``__str__``), not
    # what it does: it is read as no member's.
    members = [rowid for rowid, row in rows.items()
               if "." in row[6] and not _SPECIAL_NAME.search(row[6])]
    names = remembered_many(
        memo, "name vectors", members,
        lambda missing: dict(zip(missing, model.embed([_name_words(rows[i][6]) for i in missing],
                                                      norm=True), strict=True)),
        HELD_VECTORS)
    wanted = model.embed([query], norm=True)[0]
    factor = {rowid: 1.0 for rowid in rows}
    for weight, kept, others in ((SEMANTIC, vectors, None), (NAME_MEANING, names, 0.5)):
        similarity = {rowid: float(np.dot(vector, wanted)) for rowid, vector in kept.items()}
        if len(similarity) < 2:  # one alone is not closer than any other
            continue
        low, high = min(similarity.values()), max(similarity.values())
        if high > low:
            for rowid in rows:
                value = similarity.get(rowid)
                scaled = (value - low) / (high - low) if value is not None else others
                if scaled is not None:
                    factor[rowid] *= 1 + weight * scaled
    out = [(entry[0] * factor[entry[3][0]], *entry[1:]) if entry[3][0] in factor else entry
           for entry in scored]
    # Each file keeps the places its chunks had; only its own chunks are ordered again
    # (those of a file none of whose scores changed are in order already).
    return within_file_places(out, {entry[1] for entry in top}, order)
