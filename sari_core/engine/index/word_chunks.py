"""A file's text cut into chunks of code words: what the word index stores (see
:mod:`sari_core.engine.index.word_index` for the chunks and the columns), computed by the index
workers as they parse.

The same text and definitions must give the same chunks, word for word, in every version:
the FTS table keeps no words, so a file's chunks are taken out of it by computing them
again, and words other than those that went in would corrupt it. So the shortcuts here
(ASCII text split by ``str.split``, runs of lines sliced out of the text rather than joined
again) give exactly what the plain way gives (one regular expression over the lines
joined), and tests compare the two over real files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import accumulate, pairwise

from sari_core.engine.index.licence_headers import licence_lines
from sari_core.engine.index.scope_tree import Scope, build_tree

WINDOW = 60  # lines per chunk of text outside definitions
MAX_CHUNK_CHARS = 20_000  # words kept per chunk: generated tables say nothing more
_WORD = re.compile(r"[^\W_]+")
# In ASCII text a word is a run of ASCII letters and digits (``\w`` without ``_``): every
# other character made a space, ``str.split`` finds the same words as ``_WORD``, faster.
_NOT_WORD = str.maketrans({chr(code): " " for code in range(128) if not chr(code).isalnum()})
# The parts of a word with case changes: fooBar -> foo Bar, HTTPAdapter -> HTTP Adapter.
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W_]")


# Words in nearly every chunk of code: they rank nothing, and leaving them out of the
# index saves a third of its postings.
UBIQUITOUS = frozenset((
    "self", "cls", "this", "return", "if", "else", "elif", "for", "in", "is", "not", "and",
    "or", "the", "a", "an", "of", "to", "def", "none", "None", "True", "False", "true",
    "false", "null", "const", "let", "var", "t", "Any", "str", "int", "x", "i", "0", "1"))


_CACHE_WORDS = 200_000  # distinct words remembered per leave-out set (then forgotten)


class _Spelled(dict[str, str]):
    """word -> its words as the tokenizer is to see them, for one leave-out set: a word not
    seen before is split when it is first looked up (``__missing__``), so the look-ups of
    a chunk's words are all done in C, without first making a set of them."""

    def __init__(self, leave_out: frozenset[str]) -> None:
        super().__init__()
        self.leave_out = leave_out

    def __missing__(self, word: str) -> str:
        spelled = self[word] = _split(word, self.leave_out)
        return spelled


_spelled: dict[frozenset[str], _Spelled] = {}


def _split(word: str, leave_out: frozenset[str]) -> str:
    if word in leave_out:
        return ""
    if word.islower() or word.isupper() or word.isdigit():  # most words: one part
        return word
    return " ".join(_PARTS.findall(word))


def code_words(text: str, leave_out: frozenset[str] = frozenset()) -> str:
    """The words of ``text`` as the tokenizer is to see them: case changes split."""
    return _spell(text.translate(_NOT_WORD).split() if text.isascii() else _WORD.findall(text),
                  leave_out)


def _spell(words: list[str], leave_out: frozenset[str]) -> str:
    # A text repeats its words: each distinct one is split once (and remembered across
    # texts), the rest is dictionary lookups done in C.
    spelled = _spelled.get(leave_out)
    if spelled is None:
        spelled = _spelled[leave_out] = _Spelled(leave_out)
    elif len(spelled) > _CACHE_WORDS:
        spelled.clear()
    return " ".join(filter(None, map(spelled.__getitem__, words)))[:MAX_CHUNK_CHARS]


def _flatten(tree: Sequence[Scope]) -> Iterable[Scope]:
    for scope in tree:
        yield scope
        yield from _flatten(scope.children)


Chunk = tuple[int, int, str, str, str, str]  # line, end_line, scope, kind, name, body


class _Lines:
    """The words of runs of a text's lines, found without joining the lines again: each
    run is one slice of the text (of its ASCII letters and digits, spaces elsewhere)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.plain = text.translate(_NOT_WORD) if text.isascii() else None
        # Where each line starts (a line's "\n" ends it), and one past the text's end.
        self.starts = list(accumulate(map((1).__add__, map(len, text.split("\n"))),
                                      initial=0))

    def words(self, first: int, last: int) -> list[str]:
        """The words of lines ``first`` to ``last`` (numbered from 1; none if last < first)."""
        if last < first:
            return []
        start, end = self.starts[first - 1], self.starts[last]
        if self.plain is not None:
            return self.plain[start:end].split()
        return _WORD.findall(self.text, start, end)


def chunks(text: str, definitions: Iterable[tuple[str, str, int, int]]) -> list[Chunk]:
    """``(line, end_line, scope, kind, name words, body words)`` per chunk of ``text``."""
    lines = _Lines(text)
    count = len(lines.starts) - 1
    tree = build_tree(definitions)
    out: list[Chunk] = []
    owned = [False] * (count + 2)
    for scope in _flatten(tree):
        last = min(scope.end_line, count)
        parent = scope.qualified[:-len(scope.name)].rstrip(".")
        # The name column holds the definition's own name: its class's words belong to
        # every method of it, so they count as the body's.
        words = _WORD.findall(parent) if parent else []
        cursor = scope.line  # its lines outside its children's
        for child in scope.children:  # in the order of their first lines
            start, end = max(child.line, scope.line), min(child.end_line, last)
            if end < start:
                continue
            words += lines.words(cursor, start - 1)
            cursor = max(cursor, end + 1)
        words += lines.words(cursor, last)
        if last >= scope.line:
            owned[scope.line:last + 1] = [True] * (last - scope.line + 1)
        out.append((scope.line, scope.end_line, scope.qualified, scope.kind,
                    _name_words(scope.name), _spell(words, UBIQUITOUS)))
    for number in licence_lines(text):  # boilerplate: in no window (engine.index.licence_headers)
        if number <= count:
            owned[number] = True
    for start in range(1, count + 1, WINDOW):
        stop = min(start + WINDOW, count + 1)
        window = owned[start:stop]
        if not any(window):  # no definition's line: the window's lines as they are
            words, first, final = lines.words(start, stop - 1), start, stop - 1
        elif all(window):
            continue
        else:
            free = [number for number, taken in enumerate(window, start) if not taken]
            words, first, final = [], free[0], free[-1]
            run = free[0]  # runs of free lines, each one slice
            for before, number in pairwise(free):
                if number != before + 1:
                    words += lines.words(run, before)
                    run = number
            words += lines.words(run, free[-1])
        body = _spell(words, UBIQUITOUS)
        if body:
            out.append((first, final, "", "text", "", body))
    return out


_names: dict[str, str] = {}  # a definition's name -> its words (names repeat: __init__, get)


def _name_words(name: str) -> str:
    found = _names.get(name)
    if found is None:
        if len(_names) > _CACHE_WORDS:
            _names.clear()
        found = _names[name] = code_words(name)
    return found
