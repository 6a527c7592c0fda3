"""How ``glued_words.txt`` (the vocabulary of :mod:`sari_core.engine.search.glued_names`) is made:
from the Python standard library's own source, the largest body of code and English every
Sari install has. Regenerate it with ``python -m sari_core.engine.search.glued_vocabulary``
(the file depends on the interpreter's version; the shipped one came from CPython 3.11).

Two lists, each counted over the library's modules (tests and the IDE left out):

* **parts**: words code writes as words of their own, at least ``PART_COUNT`` times
  (``get``, ``attr``, ``timestamp``: a run of lower-case letters between underscores, dots
  or case changes), three letters or more and no English ending (``ing``, ``able``), and the
  two-letter words names start with (``as``, ``is``, ``to``);
* **whole**: words that split into parts but are English words, so never split
  (``dispatch`` is not ``dis patch``, ``another`` not ``an other``): their authors wrote
  them capitalised as a word (``Another``, ``Keyword``) ``TITLE_COUNT`` times, or in the
  prose of comments and docstrings at least ``PROSE_COUNT`` times and in at least
  ``PROSE_SHARE`` of their uses. ``getattr``, ``isoformat``, ``fromtimestamp`` are
  written in code, not in sentences: they split.
"""

from __future__ import annotations

import io
import re
import sys
import sysconfig
import tokenize
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

PART_COUNT = 20
TITLE_COUNT = 4
PROSE_COUNT = 5
PROSE_SHARE = 0.05
SHORT_PARTS = frozenset(("as", "is", "to", "on", "in", "at", "by", "of", "up"))
ENDINGS = frozenset((
    "ing", "ings", "ed", "able", "ible", "ent", "ents", "nts", "ers", "ion", "ions", "ity",
    "ment", "ments", "ness", "ive", "ful", "less", "est", "ant", "ance", "ence", "ism",
    "ist", "ize", "ise", "ous", "red", "its", "ally"))
LEFT_OUT = ("site-packages", "test", "tests", "idlelib", "lib2to3")
OUTPUT = Path(__file__).with_name("glued_words.txt")
_WORD = re.compile(r"[^\W_]+")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W_]")
_PROSE = re.compile(r"^\(?([a-z]+)[,;:.!?)]?$")  # a word between spaces, as a sentence has


def _modules(root: Path) -> Iterator[str]:
    for path in sorted(root.rglob("*.py")):
        if not set(path.relative_to(root).parts) & set(LEFT_OUT):
            try:
                yield path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue


def _prose(text: str) -> Iterator[str]:
    """The words written as prose in ``text``'s comments and docstrings."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            long_string = token.type == tokenize.STRING \
                and token.string.lstrip("rbuRBU")[:3] in ('"""', "'''")
            if token.type == tokenize.COMMENT or long_string:
                for piece in token.string.split():
                    found = _PROSE.match(piece)
                    if found:
                        yield found.group(1)
    except (tokenize.TokenError, SyntaxError):
        return


def count(root: Path) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Per word: its lower-case uses, its capitalised ones, its uses in prose."""
    lower: Counter[str] = Counter()
    title: Counter[str] = Counter()
    prose: Counter[str] = Counter()
    for text in _modules(root):
        for word in _WORD.findall(text):
            if not (word.isascii() and word.isalpha()):
                continue
            for part in [word] if word.islower() or word.isupper() else _PARTS.findall(word):
                if part.islower():
                    lower[part] += 1
                elif len(part) > 1 and part[0].isupper() and part[1:].islower():
                    title[part.lower()] += 1
        prose.update(_prose(text))
    return lower, title, prose


def vocabulary(root: Path) -> tuple[list[str], list[str]]:
    """The parts and the whole words (sorted) of the library at ``root``."""
    from sari_core.engine.search.glued_names import Vocabulary  # the split the lists are for

    lower, title, prose = count(root)
    parts = {word for word, number in lower.items()
             if number >= PART_COUNT and len(word) >= 3 and word not in ENDINGS} | SHORT_PARTS
    english = {word for word in set(lower) | set(title)
               if title[word] >= TITLE_COUNT
               or (prose[word] >= PROSE_COUNT and prose[word] >= PROSE_SHARE * lower[word])}
    splits = Vocabulary(frozenset(parts), frozenset())
    # Only the English words that would split are worth keeping whole.
    whole = sorted(word for word in english if splits.parts(word))
    return sorted(parts), whole


def main() -> int:
    parts, whole = vocabulary(Path(sysconfig.get_paths()["stdlib"]))
    lines = [f"# Made by python -m sari_core.engine.search.glued_vocabulary (Python "
             f"{sys.version_info.major}.{sys.version_info.minor}): a word a line; "
             f"'!' marks a word never split.", *parts, *(f"!{word}" for word in whole)]
    OUTPUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUTPUT}: {len(parts)} parts, {len(whole)} whole words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
