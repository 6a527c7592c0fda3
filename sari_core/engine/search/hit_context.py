"""What a search hit sits in, and the definition shown with the first hits.

Every text hit names the definition enclosing it (``scope``, ``scope_lines``), and a hit
that is a definition names itself (``symbol``), so the next call can be a symbol read.

The default search (no ``kind``) and a symbol search also show, with their first
``SHOWN_HITS`` hits, the definition each is in, so the read that would follow is not
needed: a short definition whole (at most ``SHORT_CHARS`` characters as shown for the
first hit, ``LATER_SHORT_CHARS`` for the next: what the model pays for is characters, so a
docstring-heavy function of 80 lines is as short as a dense one of 50), a longer one as
its signature and the outline of what it defines (numbered as ``read`` numbers lines). A
definition is shown once, and all of them together within ``SHOWN_CHARS``: one that no
longer fits whole is shown as its signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sari_core.engine.index.index_memo import file_definitions, file_lines, memo_for, remembered
from sari_core.engine.index.scope_tree import Scope, build_tree, innermost
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.decorators import decorated_start
from sari_core.engine.search.text_match import FileHit
from sari_core.models import SearchMatch
from sari_core.outline_rows import row_text

SHOWN_HITS = 2
# About 1,000 tokens. A definition shown whole saves the read that would follow it: a turn,
# which reads the whole conversation again (about 3,000 input-token units under the
# yardstick of sari_core.costmodel: 20,000 tokens and more read at the cached 0.1x, and the
# call written); a token shown costs about 1.5 (written once, read again on the few turns
# after it). Needed about half the time, a definition shown whole pays up to ~1,000 tokens.
SHORT_CHARS = 4000
# The same arithmetic for the later hits, needed far less often than the first (search
# quality's hit@1 is 0.83 for concept queries): about 450 tokens.
LATER_SHORT_CHARS = 1800
SIGNATURE_LINES = 12  # a signature spread over more lines is cut there
OUTLINE_ROWS = 12
SHOWN_CHARS = 5000  # all shown together
_SIGNATURE_ENDS = (":", "{", "=>", "->", ")")
# Kept between searches until the index changes: where a hit's line sits, and what a shown
# definition holds (the same hits come back query after query).
HELD_PLACES = 20_000
HELD_CHILDREN = 2_000


class _HitLike(Protocol):
    file: FileHit
    line: int


@dataclass(frozen=True)
class Placed:
    """Where a hit sits: the definition it is (``own``) or is inside (``scope``)."""

    own: Scope | None
    scope: Scope | None


def place(store: IndexStore, hits: Sequence[tuple[int, int]]) -> list[Placed]:
    """Per ``(file id, line)``: the definition starting there, else the one enclosing it
    (only the definitions holding the line are read, not the file's whole tree), kept
    until the index changes."""
    memo = memo_for(store, store.reader)
    return [remembered(memo, "placed", hit, lambda hit=hit: _placed(store, *hit), HELD_PLACES)
            for hit in hits]


def _placed(store: IndexStore, file_id: int, line: int) -> Placed:
    rows = [row for row in file_definitions(store, file_id) if row[2] <= line <= row[3]] \
        if line else []
    chain = build_tree(rows)
    scope = innermost(chain, line) if line else None
    if scope is not None and scope.line == line:
        return Placed(scope, _parent(chain, scope))
    return Placed(None, scope)


def _named(where: Placed, symbol: str, line: int) -> Placed:
    """Where a definition a symbol search found sits: itself, when one starting on its line
    bears its name (a one-line class and its first method start on the same line), and the
    definition holding it; nothing shown when the index has no such definition."""
    name = symbol.rsplit(".", 1)[-1]
    if where.own is not None and where.own.name == name:
        return where
    if where.scope is not None and where.scope.name == name and where.scope.line == line:
        return Placed(where.scope, None)
    return Placed(None, None)


def _parent(tree: Sequence[Scope], child: Scope) -> Scope | None:
    found = None
    level = tree
    while True:
        inside = [scope for scope in level if scope is not child
                  and scope.line <= child.line and child.end_line <= scope.end_line]
        if not inside:
            return found
        found = min(inside, key=lambda scope: scope.end_line - scope.line)
        level = found.children


def _with_children(store: IndexStore, file_id: int, scope: Scope) -> Scope:
    """``scope`` with the definitions directly inside it, for its outline (kept until the
    index changes)."""
    children = remembered(memo_for(store, store.reader), "children",
                          (file_id, scope.line, scope.end_line, scope.name),
                          lambda: _children(store, file_id, scope), HELD_CHILDREN)
    return Scope(scope.name, scope.kind, scope.line, scope.end_line, scope.qualified,
                 children)


def _children(store: IndexStore, file_id: int, scope: Scope) -> list[Scope]:
    rows = store.reader.execute(
        "SELECT name, kind, line, end_line FROM symbols WHERE file_id = ? AND is_def = 1 "
        "AND line >= ? AND end_line <= ?", (file_id, scope.line, scope.end_line)).fetchall()
    inside = build_tree([(str(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows])
    found = next((top for top in inside if top.line == scope.line and top.name == scope.name),
                 None)
    return found.children if found is not None else []


def _numbered(lines: Sequence[str], first: int, last: int) -> list[str]:
    return [f"{number} | {lines[number - 1].rstrip()}" for number in range(first, last + 1)
            if 0 < number <= len(lines)]


def shown(lines: Sequence[str], scope: Scope, room: int = SHORT_CHARS) -> str:
    """A short definition whole (its numbered text within ``room`` characters, at most
    ``SHORT_CHARS``); a long one's signature and outline. Either starts at its decorators,
    which are part of it."""
    last = min(scope.end_line, len(lines))
    top = decorated_start(lines, scope.line)
    whole = "\n".join(_numbered(lines, top, last))
    if len(whole) <= min(room, SHORT_CHARS):
        return whole
    end = scope.line
    while end < min(last, scope.line + SIGNATURE_LINES - 1) \
            and not lines[end - 1].rstrip().endswith(_SIGNATURE_ENDS):
        end += 1
    # A signature over several lines is shown as one: its parameters, not their layout.
    first = lines[scope.line - 1].rstrip()
    rest = " ".join(lines[number - 1].strip() for number in range(scope.line + 1, end + 1))
    joined = f"{first}{rest}" if first.endswith(("(", "[")) else f"{first} {rest}".rstrip()
    out = [*_numbered(lines, top, scope.line - 1),
           f"{scope.line} | {joined.replace(', )', ')').replace(',)', ')')}"]
    rows = [row_text(child.kind, child.name, child.line, child.end_line, 1)
            for child in scope.children[:OUTLINE_ROWS]]
    more = len(scope.children) - OUTLINE_ROWS
    if more > 0:
        rows.append(f"  ... {more} more")
    out.extend(rows)
    out.append(f"  ({scope.kind} {scope.name}: lines {top}-{scope.end_line})")
    return "\n".join(out)


def name_scopes(store: IndexStore, hits: Sequence[_HitLike], matches: Sequence[SearchMatch],
                show: bool) -> None:
    """Fill each match's definition (``symbol`` for a definition, else ``scope``); with
    ``show``, the first hits' definitions as :func:`shown` writes them."""
    placed = place(store, [(hit.file.id, hit.line) for hit in hits])
    texts: dict[int, list[str]] = {}
    if show:
        wanted = sorted({hit.file.id for hit in hits[:SHOWN_HITS]})
        texts = file_lines(store, wanted)  # read once: the hits' own lines came from them
    budget = SHOWN_CHARS
    seen: set[tuple[int, int]] = set()
    for index, (hit, where, match) in enumerate(zip(hits, placed, matches, strict=False)):
        if match.symbol is not None:  # a symbol search's hit: the definition it named
            where = _named(where, match.symbol, hit.line)
        elif where.own is not None:
            match.symbol = where.own.qualified
            match.end_line = where.own.end_line
        if where.scope is not None:
            match.scope = where.scope.qualified
            match.scope_lines = [where.scope.line, where.scope.end_line]
        definition = where.own or where.scope
        if not show or index >= SHOWN_HITS or definition is None \
                or (hit.file.id, definition.line) in seen:
            continue
        seen.add((hit.file.id, definition.line))
        room = budget if index == 0 else min(budget, LATER_SHORT_CHARS)
        text = shown(texts.get(hit.file.id, []), _with_children(store, hit.file.id, definition),
                     room)
        if len(text) <= budget:
            match.context = text
            budget -= len(text)
