"""Building and refreshing the index: incremental by size/mtime, then by content hash.

:meth:`Indexer.refresh` walks every root and re-indexes only the files whose
size or mtime changed (and whose content hash then differs); files gone from
disk leave the index. :meth:`Indexer.sync` does the same for a known set of
paths (what the change watcher saw, or what Sari just wrote) and returns the
changes with the old text from the index and the new text from disk.

The first build of a large tree runs in two phases: :meth:`Indexer.refresh` stores every
text, its trigrams and the definitions read from definition lines
(:mod:`~sari_core.engine.index.fast_definitions`), which every kind of search answers
from; :meth:`Indexer.complete_symbols` then parses each file still marked pending, from
its stored text, its symbols and word chunks replacing those definitions file by file.

A build that parses on demand (``parse_on_demand``) cuts a file's word chunks along those
definitions in its second phase and leaves its parse to the first query that needs its
references (:meth:`Indexer.parse_for_references`): the complete build costs about half the
CPU, and the first navigation over a name pays for parsing the files that may use it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from sari_core.engine.files.ignore import GITIGNORE, IgnoreRules, WalkEntry
from sari_core.engine.files.paths import PathGuard
from sari_core.engine.files.textfile import (
    BINARY_SNIFF_BYTES,
    MAX_INDEX_BYTES,
    content_hash,
    decode,
    is_binary,
    language_of,
)
from sari_core.engine.index.fast_definitions import definitions as fast_definitions
from sari_core.engine.index.progress import Progress
from sari_core.engine.index.references import split
from sari_core.engine.index.schema import unpack_utf8
from sari_core.engine.index.store import FileRow, IndexStore
from sari_core.engine.index.symbol_jobs import BACKLOG_BYTES, SymbolJobs
from sari_core.engine.index.symbol_worker import CHUNKS, PARSE, SYMBOLS, Parsed
from sari_core.engine.index.symbols import extract, supported
from sari_core.engine.index.trigrams import phrase, selects
from sari_core.errors import SariError
from sari_core.models import FileChange

log = logging.getLogger(__name__)

BULK_FILES = 500  # a refresh this large commits without fsync
RACY_NS = 2_000_000_000  # a file modified this close to when it was read is hashed again
BATCH_FILES = 2000
BATCH_BYTES = 16 * 1024 * 1024  # larger transactions: fewer FTS segments to merge
COMPLETE_FILES = 500  # files read back for their parse at a time (one transaction each)
# A temporary file of Sari's this old is an orphan (its writer was killed); a younger one
# may belong to a write in progress in another Sari process on the same workspace.
ORPHAN_AGE_SECONDS = 60.0

Key = tuple[int, str]  # (root index, path relative to the root)
COMPLETE_KEY = "build_complete"  # meta: one full build finished (set once, never cleared)


@dataclass
class IndexStats:
    files: int = 0
    text_files: int = 0
    indexed: int = 0
    removed: int = 0
    unchanged: int = 0
    bytes_indexed: int = 0
    seconds: float = 0.0
    changes: list[FileChange] = field(default_factory=list)
    last_bytes: int = 0


@dataclass(frozen=True)
class _Content:
    size: int
    digest: str
    kind: str
    text: str | None
    encoding: str | None
    data: bytes = b""


def _load(guard: PathGuard, root_index: int, rel: str) -> _Content | None:
    """A file's content class; binary and oversized files are identified by their stat
    (they are never searched, so their bytes are not read beyond the first block). The
    file is opened below the root's descriptor with no symlink followed (see fdwalk)."""
    try:
        fd = guard.open_file(root_index, rel, rel)
    except SariError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        signature = f"stat:{info.st_size}:{info.st_mtime_ns}"
        with os.fdopen(fd, "rb", closefd=False) as handle:
            if info.st_size > MAX_INDEX_BYTES:
                return _Content(info.st_size, signature, "large", None, None)
            head = handle.read(BINARY_SNIFF_BYTES)
            if is_binary(head):
                return _Content(info.st_size, signature, "binary", None, None)
            data = head + handle.read()
    except OSError:
        return None
    finally:
        os.close(fd)
    decoded = decode(data)
    return _Content(len(data), content_hash(data), "text", decoded.text, decoded.encoding,
                    data)


class Indexer:
    """Keeps the index of the workspace's files in step with the disk."""

    def __init__(self, store: IndexStore, guard: PathGuard, rules: Sequence[IgnoreRules], *,
                 parse_on_demand: bool = False) -> None:
        self.store = store
        # A first build's second phase cuts word chunks along the definition lines and
        # defers each file's parse to the first query needing its references.
        self.parse_on_demand = parse_on_demand
        # A first build of this many files or more runs in two phases.
        self.two_phase_files = BULK_FILES
        self._deferred_lock = threading.Lock()  # one deferred parse at a time
        # names whose files this process parsed (forgotten when it defers more parses)
        self._parsed_names: set[str] = set()
        self.guard = guard
        self.rules = list(rules)
        self.cancelled = threading.Event()  # set on close: a running build stops between batches
        self._orphans_swept = False
        self.orphans_removed = 0
        self.progress = (0, 0)  # (files indexed, files to index) of the running refresh
        self._may_run = threading.Event()  # cleared while calls come first (calls_first)
        self._may_run.set()
        self._calls_waiting = 0
        self._calls_lock = threading.Lock()
        # A first build's first phase: a source file's definitions are read from its
        # definition lines, its parse (and its word chunks) left to complete_symbols.
        self._first_phase = False
        self.completing = False  # complete_symbols runs: a walk leaves pending files to it

    @contextlib.contextmanager
    def calls_first(self) -> Iterator[None]:
        """While inside, a running build waits before its next file, so a call answered
        meanwhile (a scan of the tree before the first index) has the CPU and the GIL to
        itself instead of sharing them with the build."""
        with self._calls_lock:
            self._calls_waiting += 1
            self._may_run.clear()
        try:
            yield
        finally:
            with self._calls_lock:
                self._calls_waiting -= 1
                if not self._calls_waiting:
                    self._may_run.set()

    @property
    def holding_builds(self) -> bool:
        """Whether a call is being answered first (builds wait before their next file)."""
        return not self._may_run.is_set()

    def _let_calls_pass(self) -> None:
        if self._may_run.is_set():  # (no call waiting: the usual case, once per file walked,
            return                  # without the lock a wait takes)
        while not self._may_run.wait(0.1) and not self.cancelled.is_set():
            pass

    def _remove_orphan(self, folder_fd: int, name: str, info: os.stat_result) -> None:
        """Delete a temporary file a killed write left behind (first walk only)."""
        if time.time() - info.st_mtime < ORPHAN_AGE_SECONDS:
            return
        try:
            os.unlink(name, dir_fd=folder_fd)
        except OSError as exc:
            log.warning("sari: could not remove the orphaned temporary file %s: %s", name,
                        exc.strerror)
        else:
            self.orphans_removed += 1

    # --- full refresh -------------------------------------------------------------

    def refresh(self, *, progress: bool = False, report: bool = False) -> IndexStats:
        """Walk every root; index what changed; drop what is gone.

        :param report: return the changes (old text from the index, new from disk);
            the first build of a workspace reports nothing.
        """
        started = time.perf_counter()
        stats = IndexStats()
        for rules in self.rules:  # .gitignore files may have changed since the last walk
            rules.forget_all()
        known = self.store.all_files()
        seen: set[Key] = set()
        todo: list[tuple[Key, WalkEntry]] = []
        sweep = None if self._orphans_swept else self._remove_orphan
        self._orphans_swept = True
        for root_index, rules in enumerate(self.rules):
            for entry in rules.walk(temp_found=sweep):
                self._let_calls_pass()
                key = (root_index, entry.rel)
                seen.add(key)
                row = known.get(key)
                if row is not None and row.size == entry.size and row.mtime_ns == entry.mtime_ns \
                        and row.checked_ns - row.mtime_ns >= RACY_NS \
                        and (not row.symbols_pending or self.completing
                             or self.parse_on_demand):  # (left to complete_symbols)
                    stats.unchanged += 1
                    continue
                todo.append((key, entry))
        gone = [row for key, row in known.items() if key not in seen]
        stats.files = len(seen)
        self.progress = (0, len(todo))
        bar = Progress(len(todo), progress)
        bulk = len(todo) >= BULK_FILES
        first = len(todo) >= self.two_phase_files and self.store.get_meta(COMPLETE_KEY) is None
        self._first_phase = first  # its parse comes in a second phase (complete_symbols)
        jobs = SymbolJobs(0 if self._first_phase else len(todo))
        try:
            with self.store.bulk(bulk), \
                    self.store.first_build(first, lambda: not self.cancelled.is_set()):
                self._index_entries(todo, gone, jobs, bar, stats, report)
        finally:
            self._first_phase = False
            jobs.close()
        if not self.cancelled.is_set():  # every file walked is in: searches trust the index
            with self.store.transaction() as conn:
                self.store.set_meta(conn, COMPLETE_KEY, "1")
        stats.text_files = self.store.count_files()[1]
        stats.seconds = time.perf_counter() - started
        bar.close(f"sari: indexed {stats.indexed:,} of {stats.files:,} files in "
                  f"{stats.seconds:.1f}s")
        return stats

    def _index_entries(self, todo: list[tuple[Key, WalkEntry]], gone: list[FileRow],
                       jobs: SymbolJobs, bar: Progress, stats: IndexStats, report: bool) -> None:
        digests: dict[int, str] = {}
        now = time.time_ns()
        if gone:
            with self.store.transaction() as conn:
                for row in gone:
                    # A file that became ignored left the workspace's set, not the disk.
                    on_disk = os.path.lexists(self.guard.resolved(row.root, row.path).abs)
                    change = self._delete(conn, row, report and not on_disk)
                    if change is not None:
                        stats.changes.append(change)
                    stats.removed += 1
        position = 0
        while position < len(todo) and not self.cancelled.is_set():
            with self.store.transaction() as conn:
                batch_bytes = count = 0
                while position < len(todo) and count < BATCH_FILES and batch_bytes < BATCH_BYTES:
                    self._let_calls_pass()
                    (root_index, rel), entry = todo[position]
                    position += 1
                    count += 1
                    bar.advance()
                    self.progress = (position, len(todo))
                    change = self._index_one(conn, root_index, rel, entry.abs, entry.mtime_ns,
                                             now, report, report, jobs, digests, stats)
                    batch_bytes += stats.last_bytes
                    if change is not None:
                        stats.changes.append(change)
                    if stats.last_bytes and jobs.backlog > BACKLOG_BYTES:  # bounded memory
                        self._store_symbols(conn, jobs.within_backlog(), digests)
                self._store_symbols(conn, jobs.completed(), digests)
        with self.store.transaction() as conn:
            self._store_symbols(conn, jobs.finish(), digests)

    def _store_symbols(self, conn: sqlite3.Connection, results: Iterable[Parsed],
                       digests: dict[int, str]) -> int:
        stored = 0
        for file_id, symbols, chunks in results:
            # The file may have been re-indexed since it was parsed (a change seen meanwhile).
            # No symbols is an answer too: storing it clears the file's pending mark.
            if self.store.hash_of(conn, file_id) != digests.pop(file_id, None):
                continue
            if symbols is None:  # its parse deferred: the chunks of its definition lines
                assert chunks is not None
                self.store.put_chunks_deferring_parse(conn, file_id, chunks)
            elif chunks is None:  # a deferred parse: the chunks stay as they were cut
                self.store.put_deferred_symbols(conn, file_id, symbols)
            else:
                self.store.put_symbols(conn, file_id, symbols, chunks)
            stored += 1
        return stored

    # --- the second phase of a first build -------------------------------------------

    def complete_symbols(self, *, progress: bool = False) -> int:
        """Parse every file whose symbols are pending, from its stored text: tree-sitter's
        symbols and the word chunks that follow them replace, file by file, the
        definitions the first phase read from its definition lines. A build killed
        meanwhile leaves the rest pending, and the next call goes on from there.

        :return: the files whose symbols were stored.
        """
        pending = self.store.pending_files()
        if not pending:
            return 0
        bar = Progress(len(pending), progress)
        jobs = SymbolJobs(len(pending), CHUNKS if self.parse_on_demand else PARSE)
        self._parsed_names.clear()  # files may be deferred that use them
        large = len(pending) >= BULK_FILES
        self.completing = True
        try:
            with self.store.bulk(large), \
                    self.store.first_build(large, lambda: not self.cancelled.is_set(),
                                           tables=("words",), name_index=False):
                stored = self._parse_stored(pending, jobs, bar)
        finally:
            self.completing = False
            jobs.close()
        bar.close(f"sari: parsed {stored:,} files")
        return stored

    def _parse_stored(self, files: Sequence[tuple[int, str | None, str]], jobs: SymbolJobs,
                      bar: Progress | None = None, *, for_a_call: bool = False) -> int:
        """Parse ``(id, language, hash)`` files from their stored texts and store what comes
        back (a file changed meanwhile is left to its re-index).

        :param for_a_call: a call waits for the parse: it does not wait for calls itself.

        :return: the files stored.
        """
        digests: dict[int, str] = {}
        languages = {file_id: language for file_id, language, _ in files}
        stored = 0
        for start in range(0, len(files), COMPLETE_FILES):
            if self.cancelled.is_set():
                break
            part = files[start:start + COMPLETE_FILES]
            for file_id, _, digest in part:
                digests[file_id] = digest
            with self.store.transaction() as conn:
                # read by the writer, which maps no page of the index: a reader
                # would keep every text it read resident (the build's peak memory)
                for file_id, data in self.store.utf8_texts([row[0] for row in part], conn):
                    if not for_a_call:
                        self._let_calls_pass()
                    if self.cancelled.is_set():  # closing: what is stored stays
                        break
                    jobs.add(file_id, languages[file_id], data)
                    if bar is not None:
                        bar.advance()
                    if jobs.backlog > BACKLOG_BYTES:  # bounded memory
                        stored += self._store_symbols(conn, jobs.within_backlog(), digests)
                stored += self._store_symbols(conn, jobs.completed(), digests)
        if not self.cancelled.is_set():
            with self.store.transaction() as conn:
                stored += self._store_symbols(conn, jobs.finish(), digests)
        return stored

    # --- parses deferred to the queries that need them --------------------------------

    def parse_for_references(self, names: Sequence[str],
                             file_ids: Sequence[int] | None = None) -> int:
        """Parse the files whose parse was deferred and whose text uses one of ``names``
        as a word, so that their references are stored before a look-up reads them.

        The trigram index selects the files holding a name's letters (every deferred file
        for a name too short for trigrams); a regular expression over their texts keeps
        those holding it between non-word characters. A reference's name is spelled so in
        its file, so no file a look-up needs is left out, and a short name (``get``) does
        not parse every file with ``target`` or ``getattr`` in it.

        :param file_ids: the look-up reads these files only: only they are parsed.
        :return: the files parsed.
        """
        if file_ids is not None:
            return self.parse_deferred(file_ids) if file_ids else 0
        names = [name for name in names if name not in self._parsed_names]
        if not names:
            return 0  # (their files were parsed: looking again reads their texts again)
        ids: set[int] | None = set()
        for name in names:
            if not selects(name) or "\ufffd" in name:
                ids = None
                break
            assert ids is not None
            ids.update(self.store.match_ids(phrase(name)))
        if ids is not None and not ids:
            return 0
        deferred = [file_id for file_id, _, _ in self.store.deferred_parses(ids)]
        spelled = _spelled_as_words(names)
        using = [file_id for part in self.store.packed_texts(deferred) for file_id, data in part
                 if spelled.search(unpack_utf8(data))]
        parsed = self.parse_deferred(using) if using else 0
        if not self.cancelled.is_set():
            self._parsed_names.update(names)
        return parsed

    def parse_deferred(self, file_ids: Iterable[int] | None) -> int:
        """Parse those of ``file_ids`` (else every file) whose parse was deferred.

        :return: the files parsed.
        """
        with self._deferred_lock:  # (a file another query parsed meanwhile is not deferred)
            files = self.store.deferred_parses(file_ids)
            if not files:
                return 0
            jobs = SymbolJobs(len(files), SYMBOLS)  # its chunks stay as they were cut
            try:
                return self._parse_stored(files, jobs, for_a_call=True)
            finally:
                jobs.close()

    # --- one file -----------------------------------------------------------------

    def _index_one(self, conn: sqlite3.Connection, root_index: int, rel: str, abs_path: str,
                   mtime_ns: int, now: int, report_changed: bool, report_new: bool,
                   jobs: SymbolJobs | None, digests: dict[int, str], stats: IndexStats
                   ) -> FileChange | None:
        """Index one file if its content changed; the change when it is to be reported."""
        stats.last_bytes = 0
        row = self.store.file(root_index, rel, conn)
        content = _load(self.guard, root_index, rel)
        if content is None:
            return self._delete(conn, row, report_changed) if row is not None else None
        data = content.data
        stats.last_bytes = len(data)
        if row is not None and row.hash == content.digest:
            self.store.touch_file(conn, row.id, content.size, mtime_ns, now)
            stats.unchanged += 1
            # text stored, symbols never were (parsing on demand: complete_symbols's)
            if row.symbols_pending and not self._first_phase and not self.parse_on_demand:
                self._parse(conn, row.id, row.language, content, jobs, digests)
            return None
        old_text = self.store.text_of(row.id, conn) if row is not None and row.kind == "text" \
            else None
        language = language_of(rel)
        parsed = content.kind == "text" and supported(language)
        file_id = self.store.put_file(conn, row, root_index, rel, content.size, mtime_ns,
                                      content.digest, language, content.kind, content.text,
                                      content.encoding, now, symbols_pending=parsed)
        stats.indexed += 1
        if content.kind == "text":
            stats.bytes_indexed += len(data)
        if parsed and self._first_phase:
            assert content.text is not None
            self.store.put_definition_lines(conn, file_id,
                                            fast_definitions(language, content.text))
        elif parsed:
            self._parse(conn, file_id, language, content, jobs, digests)
        wanted = report_changed if row is not None else report_new
        if wanted and (old_text is not None or content.text is not None):
            return FileChange(path=self.guard.display(root_index, rel), abs_path=abs_path,
                              old_text=old_text, new_text=content.text)
        return None

    def _parse(self, conn: sqlite3.Connection, file_id: int, language: str | None,
               content: _Content, jobs: SymbolJobs | None, digests: dict[int, str]) -> None:
        """Extract a file's symbols: in a worker (stored by a later batch) or right here."""
        if jobs is not None and supported(language):
            digests[file_id] = content.digest
            jobs.add(file_id, language, content.data)
        else:
            self.store.put_symbols(conn, file_id, split(extract(language, content.data)))

    def _delete(self, conn: sqlite3.Connection, row: FileRow, report: bool
                ) -> FileChange | None:
        old_text = self.store.text_of(row.id, conn) if report and row.kind == "text" else None
        self.store.delete_file(conn, row)
        if old_text is None:
            return None
        resolved = self.guard.resolved(row.root, row.path)
        return FileChange(path=resolved.display, abs_path=str(resolved.abs), old_text=old_text,
                          new_text=None)

    # --- known paths --------------------------------------------------------------

    def sync(self, keys: Iterable[Key], *, report_new: bool = True) -> list[FileChange]:
        """Bring the given paths (files or folders) in step with the disk.

        A folder stands for everything below it: files that appeared are indexed,
        indexed files that are gone are dropped. Ignored paths are dropped too.
        """
        files: dict[Key, str] = {}
        stale: dict[Key, FileRow] = {}
        expanded: list[Key] = []
        for root_index, rel in keys:
            if rel.rsplit("/", 1)[-1] == GITIGNORE:  # new rules: re-check the whole folder
                folder = rel.rpartition("/")[0]
                self.rules[root_index].forget(folder)
                expanded.append((root_index, folder))
            expanded.append((root_index, rel))
        for root_index, rel in expanded:
            rules = self.rules[root_index]
            abs_path = os.path.join(self.guard.roots[root_index], rel) if rel \
                else str(self.guard.roots[root_index])
            try:
                info = os.lstat(abs_path)
            except OSError:
                info = None
            if info is not None and stat.S_ISDIR(info.st_mode):
                if not rules.is_ignored(rel, True):
                    for entry in _walk_below(rules, rel):
                        files[(root_index, entry.rel)] = entry.abs
                for row in self.store.files_under(root_index, rel):
                    stale.setdefault((root_index, row.path), row)
                continue
            for row in self.store.files_under(root_index, rel):  # a folder that is gone
                stale.setdefault((root_index, row.path), row)
            if info is not None and stat.S_ISREG(info.st_mode) and not rules.is_ignored(rel):
                files[(root_index, rel)] = abs_path
            else:
                row = self.store.file(root_index, rel)
                if row is not None:
                    stale[(root_index, rel)] = row
        return self._apply_sync(files, stale, report_new)

    def _apply_sync(self, files: dict[Key, str], stale: dict[Key, FileRow], report_new: bool
                    ) -> list[FileChange]:
        changes: list[FileChange] = []
        stats = IndexStats()
        now = time.time_ns()
        digests: dict[int, str] = {}
        with self.store.transaction() as conn:
            for key, row in stale.items():
                if key not in files:
                    # A file that became ignored left the workspace's set, not the disk.
                    still_there = os.path.lexists(self.guard.resolved(row.root, row.path).abs)
                    change = self._delete(conn, row, not still_there)
                    if change is not None:
                        changes.append(change)
            for (root_index, rel), abs_path in sorted(files.items()):
                try:
                    mtime_ns = os.stat(abs_path).st_mtime_ns
                except OSError:
                    mtime_ns = 0
                change = self._index_one(conn, root_index, rel, abs_path, mtime_ns, now, True,
                                         report_new, None, digests, stats)
                if change is not None:
                    changes.append(change)
        return changes


def _spelled_as_words(names: Sequence[str]) -> re.Pattern[bytes]:
    """A UTF-8 pattern finding any of ``names`` with no word character (ASCII: a broader
    match) right before or after it, where the name itself begins or ends with one."""
    spellings = []
    for name in dict.fromkeys(names):
        spelled = re.escape(name.encode("utf-8"))
        if re.match(rb"\w", name.encode("utf-8")):
            spelled = rb"(?<!\w)" + spelled
        if re.search(rb"\w$", name.encode("utf-8")):
            spelled += rb"(?!\w)"
        spellings.append(spelled)
    return re.compile(b"|".join(spellings))


def _walk_below(rules: IgnoreRules, rel: str) -> Iterable[WalkEntry]:
    """The non-ignored files below folder ``rel`` of a root."""
    prefix = rel + "/" if rel else ""
    for entry in rules.walk(start=rel):
        if entry.rel.startswith(prefix):
            yield entry
