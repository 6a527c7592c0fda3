"""How a query in words is read: which of its words count, and the spellings each has in code.

* Filler words of a question ("where", "the", "is") are left out.
* Each word also matches its common spellings in code (``environment``: ``env``,
  ``environ``; see :mod:`sari_core.engine.search.code_vocabulary`), and an adverb the word it is made from (``lazily``: ``lazy``).
* Two neighbouring words also match the name code glues them into (``look up``: ``lookup``),
  counting for both.
* Three neighbouring words also match their initials (``command line interface``: ``cli``,
  ``abstract syntax tree``: ``ast``) as the name of a definition or a file, counting for
  all three: code names a module or class for an acronym, and an acronym among a body's
  words is as often another word spelled the same. Initials that are a file extension of
  the workspace (``rst``) are left out: in a path they name the file's type.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sari_core.engine.index.word_chunks import code_words
from sari_core.engine.search.code_vocabulary import glued, spellings

# Words of a question that say nothing about the code.
FILLER = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "do", "does", "did",
    "for", "from", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
    "should", "so", "that", "the", "their", "them", "then", "there", "these", "this",
    "those", "to", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "you", "your", "find", "code", "handled",
    "happens", "done", "s"))
_ENDINGS = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "s", "ly")
ACRONYM_WORDS = 3
# Where an acronym counts: a definition's name or the file's path (the word index's columns).
ACRONYM_COLUMNS = "{name path}"


@dataclass(frozen=True)
class TermGroup:
    """Spellings that count as ``words`` of the query's words, matched in ``columns`` (an
    FTS5 column filter; empty: every column)."""

    spellings: tuple[str, ...]
    words: int = 1
    columns: str = ""

    def expression(self) -> str:
        """The FTS5 expression matching any of the spellings."""
        any_of = " OR ".join('"' + spelling.replace('"', '""') + '"'
                             for spelling in dict.fromkeys(self.spellings))
        return f"{self.columns} : ({any_of})" if self.columns else any_of


def stem(word: str) -> str:
    """A light stem for comparing words here (the index itself uses Porter's)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[:-len(ending)]
    return word


def query_terms(query: str) -> list[str]:
    """The query's words as the index spells them, filler left out (kept if all are)."""
    words = [word.lower() for word in code_words(query).split()]
    kept = [word for word in words if word not in FILLER]
    return list(dict.fromkeys(kept or words))


def word_groups(terms: Sequence[str], extensions: Collection[str] = ()) -> list[TermGroup]:
    """Per query word, the spellings that count as it (the word first); then the glued
    names of neighbouring pairs and the initials of neighbouring triples, unless the
    initials are one of the workspace's file ``extensions`` (``reject strings that``:
    ``rst``), which name a file's type, not what it does."""
    groups = [TermGroup((term, *adjective(term), *spellings(term))) for term in terms]
    for first, second in zip(terms, terms[1:], strict=False):
        joined = tuple(glued(first, second))
        if joined:
            groups.append(TermGroup(joined, 2))
    for start in range(len(terms) - ACRONYM_WORDS + 1):
        initials = "".join(word[0] for word in terms[start:start + ACRONYM_WORDS])
        if initials not in extensions:
            groups.append(TermGroup((initials,), ACRONYM_WORDS, ACRONYM_COLUMNS))
    return groups


def term_groups(terms: Sequence[str], extensions: Collection[str] = ()
                ) -> list[tuple[str, ...]]:
    """The spellings of each of :func:`word_groups`."""
    return [group.spellings for group in word_groups(terms, extensions)]


def adjective(word: str) -> tuple[str, ...]:
    """The word an adverb is made from (``lazily``: ``lazy``, ``safely``: ``safe``), which
    Porter's stemmer leaves apart; none for other words."""
    if word.endswith("ily") and len(word) >= 6:
        return (word[:-3] + "y",)
    if word.endswith("ly") and len(word) >= 6:
        return (word[:-2],)
    return ()
