"""The word index: a file's text cut into chunks of code words, for search by words.

An agent asks in words ("where are redirects followed") as often as by name. The trigram
index answers literals; this one answers words. Each text file is cut into chunks:

* a source file with definitions: one chunk per definition, holding the definition's own
  lines (a class's header, docstring and attributes, not its methods, which have their
  own chunks), and the lines outside every definition in windows of ``WINDOW`` lines;
* any other text file (docs, config, a source file without definitions): windows of
  ``WINDOW`` lines.

A chunk's words are code words: ``camelCase`` and ``HTTPAdapter`` are split at their case
changes here, ``snake_case`` and ``dotted.names`` by the tokenizer (``porter unicode61``:
an underscore or a dot separates words; Porter's stemmer makes ``redirects`` and
``followed`` match ``redirect`` and ``follow``). Three columns are ranked by BM25 with
their own weights (see :mod:`sari_core.engine.word_search`): ``name`` (the definition's
own name), ``body`` (the name of the class it is in, and its lines), ``path`` (the file's
path).

The rows live in ``word_chunks`` (where a chunk is); the FTS table ``words`` is
contentless (its words are stored nowhere else: the index stays small), so a file's chunks
are taken out by computing them again from its stored text and definitions. A file's rows
are replaced whenever its text or its definitions are.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sari_core.engine.scopes import Scope

WINDOW = 60  # lines per chunk of text outside definitions
MAX_CHUNK_CHARS = 20_000  # words kept per chunk: generated tables say nothing more
_WORD = re.compile(r"[^\W_]+")
# The parts of a word with case changes: fooBar -> foo Bar, HTTPAdapter -> HTTP Adapter.
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W_]")


# Words in nearly every chunk of code: they rank nothing, and leaving them out of the
# index saves a third of its postings.
UBIQUITOUS = frozenset((
    "self", "cls", "this", "return", "if", "else", "elif", "for", "in", "is", "not", "and",
    "or", "the", "a", "an", "of", "to", "def", "none", "None", "True", "False", "true",
    "false", "null", "const", "let", "var", "t", "Any", "str", "int", "x", "i", "0", "1"))


_CACHE_WORDS = 200_000  # distinct words remembered per leave-out set (then forgotten)
_spelled: dict[frozenset[str], dict[str, str]] = {}


def _split(word: str, leave_out: frozenset[str]) -> str:
    if word in leave_out:
        return ""
    if word.islower() or word.isupper() or word.isdigit():  # most words: one part
        return word
    return " ".join(_PARTS.findall(word))


def code_words(text: str, leave_out: frozenset[str] = frozenset()) -> str:
    """The words of ``text`` as the tokenizer is to see them: case changes split."""
    words = _WORD.findall(text)
    # A text repeats its words: each distinct one is split once (and remembered across
    # texts), the rest is dictionary lookups done in C.
    spelled = _spelled.setdefault(leave_out, {})
    if len(spelled) > _CACHE_WORDS:
        spelled.clear()
    for word in set(words).difference(spelled):
        spelled[word] = _split(word, leave_out)
    return " ".join(filter(None, map(spelled.__getitem__, words)))[:MAX_CHUNK_CHARS]


def _flatten(tree: Sequence[Scope]) -> Iterable[Scope]:
    for scope in tree:
        yield scope
        yield from _flatten(scope.children)


Chunk = tuple[int, int, str, str, str, str]  # line, end_line, scope, kind, name, body


def chunks(text: str, definitions: Iterable[tuple[str, str, int, int]]) -> list[Chunk]:
    """``(line, end_line, scope, kind, name words, body words)`` per chunk of ``text``."""
    from sari_core.engine.scopes import build_tree  # scopes reads the store, which calls here

    lines = text.split("\n")
    tree = build_tree(definitions)
    out: list[Chunk] = []
    owned = [False] * (len(lines) + 2)
    for scope in _flatten(tree):
        last = min(scope.end_line, len(lines))
        kept: list[str] = []  # its lines outside its children's, as slices of the text
        cursor = scope.line
        for child in scope.children:  # in the order of their first lines
            start, end = max(child.line, scope.line), min(child.end_line, last)
            if end < start:
                continue
            kept.extend(lines[cursor - 1:start - 1])
            cursor = max(cursor, end + 1)
        kept.extend(lines[cursor - 1:last])
        body = "\n".join(kept)
        if last >= scope.line:
            owned[scope.line:last + 1] = [True] * (last - scope.line + 1)
        parent = scope.qualified[:-len(scope.name)].rstrip(".")
        # The name column holds the definition's own name: its class's words belong to
        # every method of it, so they count as the body's.
        out.append((scope.line, scope.end_line, scope.qualified, scope.kind,
                    code_words(scope.name), code_words(f"{parent}\n{body}", UBIQUITOUS)))
    start = 1
    while start <= len(lines):
        free = [number for number in range(start, min(start + WINDOW, len(lines) + 1))
                if not owned[number]]
        if free:
            body = code_words("\n".join(lines[number - 1] for number in free), UBIQUITOUS)
            if body:
                out.append((free[0], free[-1], "", "text", "", body))
        start += WINDOW
    return out


def _rows(conn: sqlite3.Connection, file_id: int, text: str,
          definitions: Iterable[tuple[str, str, int, int]], computed: list[Chunk] | None = None
          ) -> list[tuple[int, int, str, str, str, str, str]]:
    """``(line, end_line, scope, kind, name, body, path)`` of each chunk of the file."""
    row = conn.execute("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
    path_words = code_words(str(row[0])) if row else ""
    found = chunks(text, definitions) if computed is None else computed
    return [(*chunk, path_words) for chunk in found]


def remove_file(conn: sqlite3.Connection, file_id: int) -> None:
    """Forget a file's chunks. Call it while the file's text and symbols are still stored:
    the FTS table keeps no words, so they are computed again (as :func:`put_file` did) to
    take each chunk's postings out."""
    stored = conn.execute("SELECT id, line, end_line, scope, kind FROM word_chunks "
                          "WHERE file_id = ? ORDER BY id", (file_id,)).fetchall()
    if not stored:
        return
    from sari_core.engine.schema import mark_damaged, unpack_text  # schema imports nothing of ours

    text = conn.execute("SELECT data FROM contents WHERE id = ?", (file_id,)).fetchone()
    definitions = conn.execute("SELECT name, kind, line, end_line FROM symbols "
                               "WHERE file_id = ? AND is_def = 1 ORDER BY seq", (file_id,))
    rows = _rows(conn, file_id, unpack_text(text[0]), definitions.fetchall()) if text else []
    if [tuple(chunk[1:]) for chunk in stored] != [row[:4] for row in rows]:
        mark_damaged(conn, f"the word index of file {file_id} is out of step with its text")
    else:
        conn.executemany("INSERT INTO words (words, rowid, name, body, path) "
                         "VALUES ('delete', ?, ?, ?, ?)",
                         ((chunk[0], *row[4:]) for chunk, row in zip(stored, rows, strict=True)))
    conn.execute("DELETE FROM word_chunks WHERE file_id = ?", (file_id,))


def put_file(conn: sqlite3.Connection, file_id: int, text: str,
             definitions: Iterable[tuple[str, str, int, int]] = (),
             computed: list[Chunk] | None = None) -> None:
    """Build a file's chunks from its ``text`` and ``(name, kind, line, end_line)``
    definitions (the ones stored with it, in their order: :func:`remove_file` computes
    the same chunks from them), or take them ``computed`` already (by an index worker,
    from the same text and definitions). The file must have no chunks yet."""
    rows = _rows(conn, file_id, text, definitions, computed)
    if not rows:
        return
    first = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM word_chunks").fetchone()[0])
    conn.executemany("INSERT INTO word_chunks (id, file_id, line, end_line, scope, kind) "
                     "VALUES (?,?,?,?,?,?)",
                     ((first + i, file_id, *row[:4]) for i, row in enumerate(rows)))
    conn.executemany("INSERT INTO words (rowid, name, body, path) VALUES (?,?,?,?)",
                     ((first + i, *row[4:]) for i, row in enumerate(rows)))
