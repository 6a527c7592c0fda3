"""Which files contain a literal or a regex: the exact file set, fast.

Literal queries of three characters or more select their candidates from a trigram
index (the files holding every trigram of the query, case-folded; the index keeps no
positions, which makes it a fraction of the size), and every candidate is then checked:

* case-sensitive: for the exact bytes;
* case-insensitive: "case-insensitive" means Unicode simple case folding, as
  ripgrep's ``-i`` does (``É`` = ``é``, the Kelvin sign = ``k``, ``ſ`` = ``s``; no
  length-changing folds such as ``ß`` = ``ss``). An ASCII query is found in the UTF-8
  bytes by RE2 matching without case (it folds each letter with its whole orbit, so
  ``k`` also finds the Kelvin sign and ``s`` the long s, the only characters folding into
  ASCII from elsewhere): one pass, no lowered copy; a query with other characters is
  checked with Python's fold.

The result therefore equals a plain scan of every file with the same comparison,
which the tests check. Shorter queries have no trigram: they *are* that scan.

A regex's candidates come from the literal runs it requires
(:mod:`sari_core.engine.search.regex_plan`); :func:`regex_lines` finds its lines in a text, as
grep does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple

import pathspec
import re2

from sari_core.engine.index.schema import unpack_utf8
from sari_core.engine.index.store import IndexStore
from sari_core.engine.index.stored_texts import stored_size, text_prefix
from sari_core.engine.index.trigrams import (  # noqa: F401 - re-exported
    MAX_TRIGRAMS,
    TRIGRAM,
    phrase,
)
from sari_core.engine.search import work_budget
from sari_core.engine.search.regex import MAX_MEMORY_BYTES, BytesPattern, Regex


class FileHit(NamedTuple):
    """A file that matches, as the index knows it (a tuple: a common literal makes
    thousands of them per search)."""

    id: int
    root: int
    path: str


def has_case(text: str) -> bool:
    """Whether case folding can change ``text`` (a query without letters needs no check)."""
    return text.lower() != text or text.upper() != text


@lru_cache(maxsize=128)
def glob_spec(glob: str) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines([glob])


def glob_filter(hits: Iterable[FileHit], glob: str | None) -> list[FileHit]:
    if not glob:
        return list(hits)
    spec = glob_spec(glob)
    return [hit for hit in hits if spec.match_file(hit.path)]


def _simple_fold(char: str) -> str:
    """Unicode simple case folding of one character (never changes the length)."""
    folded = char.casefold()
    if len(folded) == 1:
        return folded
    lowered = char.lower()
    return lowered if len(lowered) == 1 else char


# What folds into ASCII: the ASCII capitals, the Kelvin sign and the long s.
_ASCII_FOLD = {**{code: code + 32 for code in range(ord("A"), ord("Z") + 1)},
               0x212A: ord("k"), 0x017F: ord("s")}


@lru_cache(maxsize=1)
def _full_fold() -> dict[int, str]:
    return {code: folded for code in range(0x110000)
            if not 0xD800 <= code < 0xE000 and (folded := _simple_fold(chr(code))) != chr(code)}


def fold_text(text: str, ascii_needle: bool) -> str:
    """``text`` case-folded, character for character (offsets are kept).

    For an ASCII needle only the characters that fold into ASCII matter, which is
    much cheaper than the full table.
    """
    if text.isascii():
        return text.lower()
    if not ascii_needle or "\u0130" in text:  # İ is the one letter lower() lengthens
        return text.translate(_ASCII_FOLD if ascii_needle else _full_fold())
    # lower() folds into ASCII exactly what the fold does, except the long s.
    lowered = text.lower()
    return lowered.replace("\u017f", "s") if "\u017f" in lowered else lowered


def fold_query(query: str) -> str:
    return fold_text(query, query.isascii())


def contains(text: str, query: str, case_sensitive: bool) -> bool:
    if case_sensitive:
        return query in text
    return fold_query(query) in fold_text(text, query.isascii())


def literal_files(store: IndexStore, query: str, *, case_sensitive: bool,
                  glob: str | None = None) -> list[FileHit]:
    """Every indexed text file containing ``query`` (sorted by root, path)."""
    hits = literal_candidates(store, query, glob)
    if hits is None:
        return _short_scan(store, query, case_sensitive, glob)
    return verified(store, hits, query, case_sensitive)


def verified(store: IndexStore, candidates: list[FileHit], query: str, case_sensitive: bool,
             kept: dict[int, bytes] | None = None) -> list[FileHit]:
    """Those of ``candidates`` containing ``query`` (sorted by root, path); ``kept``
    receives the bytes of matching files (see :func:`_verified`)."""
    return _verified(store, {hit.id: hit for hit in candidates}, query, case_sensitive, kept)


def literal_candidates(store: IndexStore, query: str, glob: str | None = None
                       ) -> list[FileHit] | None:
    """The files that may contain ``query`` (they hold all its trigrams; unchecked), or
    None when the trigram index cannot select them (fewer than three characters, a NUL)."""
    if len(query) < TRIGRAM or "\x00" in query:
        return None
    spec = glob_spec(glob) if glob else None
    return [FileHit(file_id, root, path) for file_id, root, path, _ in store.match(phrase(query))
            if spec is None or spec.match_file(path)]


# A candidate that is only counted (not read for hits) is checked on its first bytes
# first, and decoded whole only when they lack the query: a common phrase (an import, a
# class header) is mostly near a file's top. Texts up to twice this are decoded at once.
PREFIX_BYTES = 8192
# The prefixes tried cost what they do not save where the query lies deeper (or nowhere):
# they are tried while the bytes they saved exceed those they cost (a missed prefix costs
# about twice its size, with the call) by less than this allowance.
PREFIX_ALLOWANCE_BYTES = 64 << 10


def first_containing(store: IndexStore, ordered: list[FileHit], query: str,
                     case_sensitive: bool, *, check_at_most: int, bytes_at_most: int,
                     found_at_least: int, kept: dict[int, bytes] | None = None
                     ) -> tuple[list[FileHit], int]:
    """Those of ``ordered`` (candidates, best first) containing ``query``, in that order,
    and how many candidates were checked: once ``check_at_most`` are (or ``bytes_at_most``
    of their text) and ``found_at_least`` were found, the rest are left unchecked."""
    check = _utf8_check(query, case_sensitive)
    # only exact byte comparisons can be made on a prefix cut anywhere (even inside a
    # character); a prefix holding the query holds it in the whole text
    on_prefix = case_sensitive or query.isascii()
    prefix_gain = PREFIX_ALLOWANCE_BYTES  # bytes the prefixes saved, less what they cost
    spend = work_budget.spend
    out: list[FileHit] = []
    checked = read = 0
    for start in range(0, len(ordered), BATCH_FILES):
        part = ordered[start:start + BATCH_FILES]
        packed = dict(row for batch in store.packed_texts([hit.id for hit in part])
                      for row in batch)
        for hit in part:
            if (checked >= check_at_most or read >= bytes_at_most) \
                    and len(out) >= found_at_least:
                return out, checked
            stored = packed.get(hit.id)
            if stored is None:
                continue
            size = stored_size(stored)
            if not spend(size):
                return out, checked
            checked += 1
            read += size
            counted_only = kept is None or len(out) >= found_at_least
            if counted_only and on_prefix and size > 2 * PREFIX_BYTES and prefix_gain > 0:
                if check(text_prefix(stored, PREFIX_BYTES)):
                    prefix_gain += size - PREFIX_BYTES
                    out.append(hit)
                    continue
                prefix_gain -= 2 * PREFIX_BYTES
            data = unpack_utf8(stored)
            if check(data):
                if not counted_only:  # the files read next
                    kept[hit.id] = data  # type: ignore[index]
                out.append(hit)
    return out, checked


BATCH_FILES = 200  # candidates read from the index at once, in their order


def _utf8_check(query: str, case_sensitive: bool) -> Callable[[bytes], bool]:
    """Whether a text's UTF-8 bytes contain ``query`` (see the module's comparisons)."""
    if not case_sensitive and not query.isascii():
        return lambda data: contains(data.decode("utf-8"), query, False)
    needle = query.encode("utf-8")
    if case_sensitive:
        return lambda data: needle in data
    return _found_by(ascii_without_case(query), query)


# The UTF-8 bytes of the two non-ASCII letters whose simple case folding is ASCII: the Kelvin
# sign (k) and the long s (s). Only a text holding one of them needs RE2 to say whether an ASCII
# query occurs in it without case.
_FOLDS_TO_ASCII = {"k": b"\xe2\x84\xaa", "s": b"\xc5\xbf"}


def _found_by(pattern: BytesPattern, query: str) -> Callable[[bytes], bool]:
    """Whether the ASCII ``query`` occurs in a text without case, as ``pattern`` (RE2 under
    simple case folding) says: the text's ASCII-lowered bytes hold the lowered query, or, for
    a text holding a letter that folds to ASCII, RE2's public ``search`` finds it. (RE2's
    ``search`` builds a match object per text: for a common literal's thousands of candidates
    the lowered copy is cheaper.)"""
    lowered = query.lower().encode("ascii")
    folding = tuple(code for letter, code in _FOLDS_TO_ASCII.items() if letter in query.lower())
    search = pattern.search
    if not folding:
        return lambda data: lowered in data.lower()
    return lambda data: lowered in data.lower() or (
        any(code in data for code in folding) and search(data) is not None)


def _short_scan(store: IndexStore, query: str, case_sensitive: bool, glob: str | None
                ) -> list[FileHit]:
    """A query too short for trigrams: scan every text, on its UTF-8 bytes where exact."""
    if not case_sensitive and not query.isascii():
        return _scan(store, glob, lambda text: contains(text, query, False))
    rows = glob_filter((FileHit(row.id, row.root, row.path) for row in store.text_files()), glob)
    return _verified(store, {hit.id: hit for hit in rows}, query, case_sensitive)


def _verified(store: IndexStore, by_id: dict[int, FileHit], query: str, case_sensitive: bool,
              kept: dict[int, bytes] | None = None) -> list[FileHit]:
    """Those of ``by_id`` whose text contains ``query``: on the UTF-8 bytes where exact.

    :param kept: receives the matching files' bytes (up to ``KEPT_BYTES``), so that the
        call reading their lines next does not read and decompress them again.
    """
    check = _utf8_check(query, case_sensitive)
    spend = work_budget.spend
    out: list[FileHit] = []
    room = KEPT_BYTES if kept is not None else 0
    # One flat loop: a common phrase has thousands of candidates, and each layer of
    # generators around the check cost as much as decompressing a file.
    for batch in store.packed_texts(list(by_id)):
        for file_id, packed in batch:
            data = unpack_utf8(packed)
            if not spend(len(data)):
                return sorted(out, key=lambda hit: (hit.root, hit.path))
            if check(data):
                out.append(by_id[file_id])
                if len(data) <= room:
                    kept[file_id] = data  # type: ignore[index]
                    room -= len(data)
    return sorted(out, key=lambda hit: (hit.root, hit.path))


KEPT_BYTES = 16 << 20  # matching files' texts kept for the call's own reading of them


@lru_cache(maxsize=64)
def ascii_without_case(query: str) -> BytesPattern:
    """RE2 finding the ASCII ``query`` in UTF-8 bytes under simple case folding."""
    options = re2.Options()
    options.case_sensitive = False
    options.never_capture = True
    options.log_errors = False
    options.max_mem = MAX_MEMORY_BYTES
    literal = "".join(char if char.isalnum() else f"\\x{ord(char):02x}" for char in query)
    return re2.compile(literal.encode("ascii"), options)  # pyright: ignore[reportReturnType] - re2 has no stubs


def _scan(store: IndexStore, glob: str | None, predicate: Callable[[str], bool]
          ) -> list[FileHit]:
    rows = glob_filter((FileHit(row.id, row.root, row.path) for row in store.text_files()), glob)
    by_id = {hit.id: hit for hit in rows}
    out: list[FileHit] = []
    for file_id, text in work_budget.within(store.texts(list(by_id))):
        if predicate(text):
            out.append(by_id[file_id])
    return sorted(out, key=lambda hit: (hit.root, hit.path))


def regex_lines(rx: Regex, text: str, limit: int | None = None) -> list[int]:
    """1-based numbers of the lines where ``rx`` matches (grep semantics)."""
    return rx.lines(text.encode("utf-8"), limit)

