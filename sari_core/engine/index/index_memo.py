"""Values read from the index that hold until the index changes, kept between searches.

A search by words asks the index the same things query after query: which chunks hold a
common word, how long a chunk is. Those answers change only when the index does, so
they are kept here, per reader connection, and dropped as soon as SQLite's
``PRAGMA data_version`` says another connection (the writer) committed since they were
read. A value is therefore never older than the index the same search reads.

Each kind of value has its own bound (in entries, or in what its values weigh: the rows of
a word's chunk set), least recently used first out, so a large workspace cannot grow the
memo without limit.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

T = TypeVar("T")


class _Memo:
    """One connection's values, all of one index version."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn  # kept so its id is not reused while this memo lives
        self.version: int | None = None
        self.kinds: dict[str, OrderedDict[Hashable, object]] = {}
        self.weights: dict[str, int] = {}  # per kind, what its kept values weigh together

    def current(self) -> _Memo:
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self.version:
            self.version = version
            self.kinds.clear()
            self.weights.clear()
        return self


_by_owner: WeakKeyDictionary[object, dict[int, _Memo]] = WeakKeyDictionary()
_lock = threading.Lock()


def memo_for(owner: object, conn: sqlite3.Connection) -> _Memo:
    """The values kept for ``conn`` (a reader of ``owner``'s index), checked current."""
    with _lock:
        per_conn = _by_owner.setdefault(owner, {})
        memo = per_conn.get(id(conn))
        if memo is None or memo.conn is not conn:
            memo = per_conn[id(conn)] = _Memo(conn)
    return memo.current()


def remembered(memo: _Memo, kind: str, key: Hashable, compute: Callable[[], T],
               bound: int, size: Callable[[T], int] = lambda value: 1) -> T:
    """``compute()`` the first time ``key`` of ``kind`` is asked in this index version; the
    values of ``kind`` kept weigh at most ``bound`` together (each ``size(value)``, 1 by
    default: a count of entries), the least recently used first out."""
    values = memo.kinds.setdefault(kind, OrderedDict())
    if key in values:
        values.move_to_end(key)
        return values[key][1]  # type: ignore[index,no-any-return]
    value = compute()
    weight = size(value)
    if weight <= bound:
        values[key] = (weight, value)
        memo.weights[kind] = memo.weights.get(kind, 0) + weight
        while memo.weights[kind] > bound:
            _, (dropped, _) = values.popitem(last=False)  # type: ignore[misc]
            memo.weights[kind] -= dropped
    return value


def remembered_many(memo: _Memo, kind: str, keys: list[int],
                    compute: Callable[[list[int]], dict[int, T]], bound: int) -> dict[int, T]:
    """Values of ``keys`` of ``kind``; ``compute`` is asked only for those not kept (at most
    ``bound`` of ``kind`` kept, the oldest read first out)."""
    values = memo.kinds.setdefault(kind, OrderedDict())
    missing = [key for key in keys if key not in values]
    if missing:
        for key, value in compute(missing).items():
            values[key] = value
        while len(values) > bound:
            values.popitem(last=False)
    return {key: values[key] for key in keys if key in values}  # type: ignore[misc]


# A file's lines, for the files a search just read: the hits' lines and the definitions
# shown with the first hits come from the same few files, read once.
LINES_FILES = 32
LINES_MAX_CHARS = 256 * 1024  # a longer text is split each time, not kept


def file_lines(store: Any, file_ids: Iterable[int]) -> dict[int, list[str]]:
    """Each of ``file_ids``'s text as its lines (``store.texts``, split at ``\\n``)."""
    memo = memo_for(store, store.reader)
    values = memo.kinds.setdefault("lines", OrderedDict())
    out: dict[int, list[str]] = {}
    missing = []
    for file_id in dict.fromkeys(file_ids):
        if file_id in values:
            values.move_to_end(file_id)
            out[file_id] = values[file_id]  # type: ignore[assignment]
        else:
            missing.append(file_id)
    for file_id, text in store.texts(sorted(missing)) if missing else ():
        lines = out[file_id] = text.split("\n")
        if len(text) <= LINES_MAX_CHARS:
            values[file_id] = lines
            if len(values) > LINES_FILES:
                values.popitem(last=False)
    return out


DEFINITION_FILES = 256


def file_definitions(store: Any, file_id: int) -> list[tuple[str, str, int, int]]:
    """``(name, kind, line, end_line)`` of every definition in the file, in index order."""
    return remembered(memo_for(store, store.reader), "definitions", file_id, lambda: [
        (str(name), str(kind), int(line), int(end_line)) for name, kind, line, end_line in
        store.reader.execute("SELECT name, kind, line, end_line FROM symbols "
                             "WHERE file_id = ? AND is_def = 1", (file_id,))],
        DEFINITION_FILES)
