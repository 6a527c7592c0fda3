"""Word chunks computed with the shortcuts equal those of the plain way, over real files.

The word index keeps no words: a file's chunks are taken out of it by computing them
again, so every version must compute the same words from the same text and definitions.
``plain_chunks`` below is the plain way (a definition's lines joined, one regular
expression over them); the engine's chunks must equal it on real modules (this package's
and the standard library's, some of them not ASCII) and on edge cases.
"""

from __future__ import annotations

import re
import sysconfig
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from sari_core.engine.files.textfile import decode
from sari_core.engine.index.licence_headers import licence_lines
from sari_core.engine.index.scope_tree import Scope, build_tree
from sari_core.engine.index.symbols import extract
from sari_core.engine.index.word_chunks import (
    MAX_CHUNK_CHARS,
    UBIQUITOUS,
    WINDOW,
    chunks,
    code_words,
)

PACKAGE = Path(__file__).resolve().parents[2] / "sari_core"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
WORD = re.compile(r"[^\W_]+")
PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W_]")


def plain_words(text: str, leave_out: frozenset[str] = frozenset()) -> str:
    out = []
    for word in WORD.findall(text):
        if word in leave_out:
            continue
        plain = word.islower() or word.isupper() or word.isdigit()
        out.append(word if plain else " ".join(PARTS.findall(word)))
    return " ".join(out)[:MAX_CHUNK_CHARS]


def _flatten(tree: Sequence[Scope]) -> Iterable[Scope]:
    for scope in tree:
        yield scope
        yield from _flatten(scope.children)


def plain_chunks(text: str, definitions: list[tuple[str, str, int, int]]) -> list[tuple]:
    lines = text.split("\n")
    out: list[tuple] = []
    owned = [False] * (len(lines) + 2)
    for scope in _flatten(build_tree(definitions)):
        last = min(scope.end_line, len(lines))
        kept: list[str] = []
        cursor = scope.line
        for child in scope.children:
            start, end = max(child.line, scope.line), min(child.end_line, last)
            if end < start:
                continue
            kept.extend(lines[cursor - 1:start - 1])
            cursor = max(cursor, end + 1)
        kept.extend(lines[cursor - 1:last])
        for number in range(scope.line, last + 1):
            owned[number] = True
        parent = scope.qualified[:-len(scope.name)].rstrip(".")
        body = "\n".join(kept)
        out.append((scope.line, scope.end_line, scope.qualified, scope.kind,
                    plain_words(scope.name), plain_words(f"{parent}\n{body}", UBIQUITOUS)))
    for number in licence_lines(text):  # the header's lines are in no window
        owned[number] = True
    for start in range(1, len(lines) + 1, WINDOW):
        free = [number for number in range(start, min(start + WINDOW, len(lines) + 1))
                if not owned[number]]
        if free:
            body = plain_words("\n".join(lines[number - 1] for number in free), UBIQUITOUS)
            if body:
                out.append((free[0], free[-1], "", "text", "", body))
    return out


def _definitions(text: bytes) -> list[tuple[str, str, int, int]]:
    return [(name, kind, line, end) for name, kind, is_def, line, end in extract("python", text)
            if is_def]


def _real_modules() -> list[Path]:
    paths = sorted(PACKAGE.rglob("*.py"))
    for folder in ("json", "email", "encodings", "unittest", "test/test_email"):
        paths += sorted((STDLIB / folder).rglob("*.py"))
    return paths


def test_chunks_of_real_modules_equal_the_plain_way() -> None:
    paths = _real_modules()
    texts = [path.read_bytes() for path in paths]
    assert any(not decode(data).text.isascii() for data in texts), "no non-ASCII module read"
    compared = 0
    for path, data in zip(paths, texts, strict=True):
        text, definitions = decode(data).text, _definitions(data)
        assert chunks(text, definitions) == plain_chunks(text, definitions), path
        assert chunks(text, []) == plain_chunks(text, []), path
        compared += len(definitions)
    assert compared > 5_000


@pytest.mark.parametrize("text", [
    "", "\n", "x", "a\n\nb\n", "naïve_café = CamelCaseName\nAPIKey2Go\n", "ÄÖÜ\tstraße ſ K\n",
    "\n".join(f"line{n} HTTPAdapter self.value_{n}" for n in range(200)),
    "tab\tand\x0bvertical\x0cfeed\x1cfile\x1dsep\rcarriage\n" * 3,
])
def test_edge_texts_give_the_plain_words(text: str) -> None:
    for leave_out in (frozenset(), UBIQUITOUS):
        assert code_words(text, leave_out) == plain_words(text, leave_out)
    definitions = [("Outer", "class", 1, 3), ("inner", "method", 2, 2), ("far", "function", 150, 400)]
    assert chunks(text, definitions) == plain_chunks(text, definitions)
    assert chunks(text, []) == plain_chunks(text, [])
