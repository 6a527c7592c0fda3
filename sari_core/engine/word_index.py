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

The rows live in ``word_chunks`` (the FTS table ``words`` is its external-content index);
a file's rows are replaced whenever its text or its definitions are.
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


def code_words(text: str, leave_out: frozenset[str] = frozenset()) -> str:
    """The words of ``text`` as the tokenizer is to see them: case changes split."""
    out: list[str] = []
    for word in _WORD.findall(text):
        if word in leave_out:
            continue
        if word.islower() or word.isupper() or word.isdigit():  # most words: one part
            out.append(word)
        else:
            out.extend(_PARTS.findall(word))
    return " ".join(out)[:MAX_CHUNK_CHARS]


def _flatten(tree: Sequence[Scope]) -> Iterable[Scope]:
    for scope in tree:
        yield scope
        yield from _flatten(scope.children)


def chunks(text: str, definitions: Iterable[tuple[str, str, int, int]]
           ) -> list[tuple[int, int, str, str, str, str]]:
    """``(line, end_line, scope, kind, name words, body words)`` per chunk of ``text``."""
    from sari_core.engine.scopes import build_tree  # scopes reads the store, which calls here

    lines = text.split("\n")
    tree = build_tree(definitions)
    out: list[tuple[int, int, str, str, str, str]] = []
    owned = [False] * (len(lines) + 2)
    for scope in _flatten(tree):
        last = min(scope.end_line, len(lines))
        mine = [True] * (last - scope.line + 1)
        for child in scope.children:
            for number in range(max(child.line, scope.line), min(child.end_line, last) + 1):
                mine[number - scope.line] = False
        body = "\n".join(lines[number - 1] for number in range(scope.line, last + 1)
                         if mine[number - scope.line])
        for number in range(scope.line, last + 1):
            owned[number] = True
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


def remove_file(conn: sqlite3.Connection, file_id: int) -> None:
    """Forget a file's chunks (its FTS entries first: they are found by their words)."""
    conn.execute("INSERT INTO words (words, rowid, name, body, path) SELECT 'delete', id, "
                 "name, body, path FROM word_chunks WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM word_chunks WHERE file_id = ?", (file_id,))


def put_file(conn: sqlite3.Connection, file_id: int,
             definitions: Iterable[tuple[str, str, int, int]] = ()) -> None:
    """(Re)build a file's chunks from its stored text and ``(name, kind, line, end_line)``
    definitions."""
    row = conn.execute("SELECT f.path, c.text FROM files f JOIN contents c ON c.id = f.id "
                       "WHERE f.id = ?", (file_id,)).fetchone()
    remove_file(conn, file_id)
    if row is None:
        return
    path, text = str(row[0]), str(row[1])
    path_words = code_words(path)
    conn.executemany(
        "INSERT INTO word_chunks (file_id, line, end_line, scope, kind, name, body, path) "
        "VALUES (?,?,?,?,?,?,?,?)", ((file_id, line, end_line, scope, kind, name, body,
                                     path_words)
                                    for line, end_line, scope, kind, name, body
                                    in chunks(text, definitions)))
    conn.execute("INSERT INTO words (rowid, name, body, path) SELECT id, name, body, path "
                 "FROM word_chunks WHERE file_id = ?", (file_id,))
