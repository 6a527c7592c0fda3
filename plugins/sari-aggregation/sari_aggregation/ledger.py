"""What one session has been delivered: per file version, which item holds each line."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass, field

NAMESPACE = "aggregation"


@dataclass
class FileLedger:
    """Lines of one file version delivered verbatim, each with the item that holds it."""

    content_hash: str
    owners: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemRecord:
    path: str
    content_hash: str
    lines: tuple[int, ...]
    searched: bool = False  # the lines a search answer showed, not a read


@dataclass
class SessionLedger:
    """The session's context items (guarded by the session's lock).

    Items are numbered from 1 in the order their reads were served. A line is owned
    by the latest item that delivered it verbatim — the most recent copy in the
    client's context, the one least likely to have been compacted away.
    """

    files: dict[str, FileLedger] = field(default_factory=dict)
    # path -> line -> (item, the text a search answer showed for it): checked against a
    # read's own line when the read is served, so a line changed since is not referenced.
    shown: dict[str, dict[int, tuple[int, str]]] = field(default_factory=dict)
    items: OrderedDict[int, ItemRecord] = field(default_factory=OrderedDict)
    next_item: int = 1
    lines_referenced: int = 0

    def owners(self, path: str, content_hash: str) -> dict[int, int]:
        """Delivered lines of this exact version of ``path`` (empty if it changed since)."""
        ledger = self.files.get(path)
        if ledger is None or ledger.content_hash != content_hash:
            return {}
        return ledger.owners

    def search_owners(self, path: str, first_line: int, lines: list[str]) -> dict[int, int]:
        """Lines of a read (``lines``, numbered from ``first_line``) that a search answer
        showed exactly as they are now -> the search's item."""
        found: dict[int, int] = {}
        for number, (item, text) in self.shown.get(path, {}).items():
            index = number - first_line
            if 0 <= index < len(lines) and lines[index] == text + "\n":
                found[number] = item
        return found

    def commit_shown(self, item: int, path: str, rows: dict[int, str], max_items: int) -> None:
        """Record the rows a search answer showed of ``path`` as ``item``."""
        mine = self.shown.setdefault(path, {})
        for number, text in rows.items():
            mine[number] = (item, text)
        self.items[item] = ItemRecord(path, "", tuple(sorted(rows)), searched=True)
        while len(self.items) > max_items:
            self._forget(*self.items.popitem(last=False))

    def searched_items(self) -> frozenset[int]:
        """The items that are lines a search answer showed."""
        return frozenset(item for item, record in self.items.items() if record.searched)

    def allocate_item(self) -> int:
        item = self.next_item
        self.next_item += 1
        return item

    def commit(self, record: ItemRecord, item: int, max_items: int) -> None:
        """Record the lines ``item`` delivered verbatim; a changed file starts over."""
        ledger = self.files.get(record.path)
        if ledger is None or ledger.content_hash != record.content_hash:
            ledger = self.files[record.path] = FileLedger(record.content_hash)
        for number in record.lines:
            ledger.owners[number] = item
        self.items[item] = record
        while len(self.items) > max_items:
            self._forget(*self.items.popitem(last=False))

    def _forget(self, item: int, record: ItemRecord) -> None:
        if record.searched:
            mine = self.shown.get(record.path, {})
            for number in record.lines:
                if mine.get(number, (None, ""))[0] == item:
                    del mine[number]
            return
        ledger = self.files.get(record.path)
        if ledger is None or ledger.content_hash != record.content_hash:
            return
        for number in record.lines:
            if ledger.owners.get(number) == item:
                del ledger.owners[number]

    def forget_path(self, path: str) -> None:
        """The file changed: nothing delivered of it may be referenced any more."""
        self.files.pop(path, None)
        self.shown.pop(path, None)

    def bundle_id(self, extra: ItemRecord | None = None) -> str:
        """Stable hash of the bundle: every (file version, delivered line ranges).

        Independent of item numbers and of the order lines arrived in, so the same
        delivered content always has the same id.
        """
        content: dict[tuple[str, str], set[int]] = {}
        for path, ledger in self.files.items():
            content.setdefault((path, ledger.content_hash), set()).update(ledger.owners)
        if extra is not None:
            key = (extra.path, extra.content_hash)
            if self.files.get(extra.path) is not None \
                    and self.files[extra.path].content_hash != extra.content_hash:
                content.pop((extra.path, self.files[extra.path].content_hash), None)
            content.setdefault(key, set()).update(extra.lines)
        entries = [[path, digest, _ranges(lines)]
                   for (path, digest), lines in sorted(content.items()) if lines]
        encoded = json.dumps(entries, separators=(",", ":")).encode("utf-8")
        return "cb_" + hashlib.sha256(encoded).hexdigest()[:20]


def _ranges(lines: set[int]) -> list[list[int]]:
    ranges: list[list[int]] = []
    for number in sorted(lines):
        if ranges and ranges[-1][1] == number - 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    return ranges
