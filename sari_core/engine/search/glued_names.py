"""The words inside a glued lower-case name: ``fromtimestamp`` holds ``timestamp``,
``isoformat`` ``iso format``, ``getattr`` ``get attr``.

Code glues words with no case change or underscore as often as it separates them, and an
agent asking "convert from a unix timestamp" names the words, not the glued name. A
definition's head counts its name's parts as words it says
(:mod:`sari_core.engine.search.definition_heads`); the word index keeps the name whole.

A name splits into two parts, else three, each a word of the vocabulary
(``glued_words.txt``, made from the standard library's source by
:mod:`sari_core.engine.search.glued_vocabulary`); of several splits the one whose shortest part
is longest wins (``readlines``: ``read lines``), and a part that splits again adds its
own parts. The words it was glued with (``GLUE``: ``from``, ``over``, ``is``) are left
out of the parts. English words the vocabulary marks whole never split (``dispatch`` is
no ``dis patch``, ``present`` no ``pre sent``), nor do words shorter than ``SHORTEST`` or
longer than ``LONGEST``, or with digits or capitals (case changes split those already).

The split depends on the word and the shipped vocabulary alone: the same in every run.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

SHORTEST = 5  # letters in the shortest name that is split
LONGEST = 30  # and in the longest (longer runs of letters are data, not names)
# Words a name is glued with that say nothing of what it does (``from`` in
# ``fromtimestamp``, ``over`` in ``overload``): a split needs them, the parts leave them
# out (a question's "from" and "over" would match every such name for nothing).
GLUE = frozenset(("as", "is", "to", "on", "in", "at", "by", "of", "up", "for", "from",
                  "with", "into", "onto", "over", "under", "out", "off", "all", "any",
                  "some", "the", "and", "not", "how", "what", "when", "where", "this"))
_DATA = Path(__file__).with_name("glued_words.txt")
# Two-letter words a name may start with (``astimezone``, ``isfile``, ``tolist``); no
# other part is shorter than three letters.
_SHORT = frozenset(("as", "is", "to", "on", "in", "at", "by", "of", "up"))


@dataclass(frozen=True)
class Vocabulary:
    """Words a glued name may be made of (``known``) and words never split (``whole``).
    Callers remember the splits they need (the word search keeps heads' words)."""

    known: frozenset[str]
    whole: frozenset[str]

    def parts(self, word: str) -> tuple[str, ...]:
        """The parts of ``word`` (none if it is not a glued name), then their own parts."""
        return self._split(word) if self._splits(word) else ()

    def _splits(self, word: str) -> bool:
        return SHORTEST <= len(word) <= LONGEST and word.isascii() and word.isalpha() \
            and word.islower() and word not in self.whole

    def _split(self, word: str) -> tuple[str, ...]:
        out: list[str] = []
        for part in self._two(word) or self._three(word):
            out.append(part)
            if part not in _SHORT and self._splits(part):
                out.extend(self._split(part))
        return tuple(dict.fromkeys(out))

    def _head(self, head: str) -> bool:
        return head in _SHORT if len(head) == 2 else head in self.known

    def _two(self, word: str) -> tuple[str, ...]:
        """The split into two known parts with the longest second one: ``readlines`` is
        ``read lines``. (A part is three letters or more, the first may be in ``_SHORT``.)"""
        for cut in range(2, len(word) - 2):
            if self._head(word[:cut]) and word[cut:] in self.known:
                return word[:cut], word[cut:]
        return ()

    def _three(self, word: str) -> tuple[str, ...]:
        """The split into three known parts whose shorter last two is longest (then the
        earliest first cut)."""
        best: tuple[str, ...] = ()
        best_key = (0, 0)
        for first in range(2, len(word) - 5):
            if not self._head(word[:first]):
                continue
            rest = word[first:]
            for second in range(3, len(rest) - 2):
                middle, last = rest[:second], rest[second:]
                key = (min(second, len(last)), -first)
                if key > best_key and middle in self.known and last in self.known:
                    best, best_key = (word[:first], middle, last), key
        return best


@cache
def vocabulary() -> Vocabulary:
    """The shipped vocabulary."""
    known: set[str] = set()
    whole: set[str] = set()
    for line in _DATA.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            (whole.add(line[1:]) if line.startswith("!") else known.add(line))
    return Vocabulary(frozenset(known | _SHORT), frozenset(whole))


def glued_parts(word: str) -> tuple[str, ...]:
    """The words glued into ``word`` that say what it is (none for a word that is not a
    glued name): not the ``GLUE`` words it was split at."""
    return tuple(part for part in vocabulary().parts(word) if part not in GLUE)
