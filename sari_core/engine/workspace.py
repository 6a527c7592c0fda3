"""The workspace engine's facade: what the kernel calls (see ``engine_protocol.Engine``).

``Workspace(roots)`` opens (or creates) the index in the user's cache folder and
starts watching the roots; it does not index yet. The index is built by
:meth:`Workspace.ensure_index` (the CLI, with a progress bar on a terminal), in
the background by :meth:`Workspace.start_background_index` (the MCP server, so
``initialize`` is not delayed), or on first use. Every search first applies the
changes seen on disk, so its answer reflects the files as they are now.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from sari_core.engine.changes.changes import (
    ChangeSource,
    Key,
    StatSweep,
    WatchAfterFirstBuild,
    change_source,
)
from sari_core.engine.files.ignore import IgnoreRules
from sari_core.engine.files.paths import PathGuard
from sari_core.engine.index.build_priority import run_here, run_lowered
from sari_core.engine.index.indexer import COMPLETE_KEY, Indexer, IndexStats
from sari_core.engine.index.names import MatchMode
from sari_core.engine.index.progress import wants_progress
from sari_core.engine.index.reference_counts import reference_counts
from sari_core.engine.index.schema import default_index_path, index_bytes
from sari_core.engine.index.store import IndexStore
from sari_core.engine.scan import regex_routing
from sari_core.engine.scan.scan import WorkspaceScan
from sari_core.engine.scan.scan_search import SCANNED_KINDS, scan_search
from sari_core.engine.search import work_budget
from sari_core.engine.search.search import Searcher
from sari_core.engine.search.text_match import FileHit
from sari_core.errors import SariError
from sari_core.models import (
    FileChange,
    MutationCall,
    ReadCall,
    ReadResult,
    SearchCall,
    SearchResult,
)

if TYPE_CHECKING:
    from sari_core.engine.changes.mutations import Mutator
    from sari_core.engine.navigation.navigation import Definition, Navigator
    from sari_core.engine.navigation.outline import Outliner
    from sari_core.engine.navigation.reading import Reader

log = logging.getLogger(__name__)

# Between a first build's two phases, what a search by symbol answers from.
PARSED_KINDS = frozenset({"symbol", "references", "callers", "implementations"})
DEFINITION_LINES_NOTE = ("The index is still parsing source files: their definitions are "
                         "read from definition lines (def, class, function ...) meanwhile, "
                         "and references are not known yet.")
WORDS_PENDING_NOTE = ("The index is still parsing source files: a match by words is found "
                      "in them once they are parsed; literal matches are complete.")
UNPARSED_NOTE = ("Files no navigation query has parsed yet give the definitions on their "
                 "definition lines (def, class, function ...): a name bound another way in "
                 "them is found once a references or callers query parses them.")
READY_WAIT_SECONDS = 2.0  # how long a search waits for a background build before answering
PARSE_MODES = ("eager", "on-demand")  # SARI_PARSE, or Workspace(parse=...)


class Workspace:
    """Search, read and write one or more workspace roots through one index.

    :param roots: the workspace folders (canonicalised: ``~`` expanded, symlinks resolved).
    :param index_path: the SQLite file (default: ``cache_dir()/index/<workspace_hash>.sqlite``).
    :param watch: notice changes with inotify (Linux) instead of a stat sweep per call.
    :param one_call: the process makes one call after its build (the command line): the
        build's walk alone finds what changed (no watcher, no folders kept for later sweeps).
    :param exclude: extra exclusions, as ``.gitignore`` lines applying at every root.
    :param keep_executable_bits: an edit or write over an executable file keeps its exec
        bits (by default they are dropped: no file the agent wrote is left executable).
    :param parse: ``"eager"``: a first build parses every source file (its second phase);
        ``"on-demand"``: its second phase cuts word chunks along the definition lines, and
        a file is parsed by the first query needing its references or its outline (about
        half the build's CPU; the first navigation over a name pays for its files). Default:
        ``SARI_PARSE``, else eager.
    """

    def __init__(self, roots: Sequence[str | os.PathLike[str]], *,
                 index_path: Path | None = None, watch: bool = True,
                 exclude: Sequence[str] = (), keep_executable_bits: bool = False,
                 one_call: bool = False, parse: str | None = None) -> None:
        parse = parse or os.environ.get("SARI_PARSE") or "eager"
        if parse not in PARSE_MODES:
            raise SariError("bad_setting", f"unknown parse mode {parse!r}",
                            hint="SARI_PARSE (or parse=) is 'eager' or 'on-demand'",
                            details={"allowed": list(PARSE_MODES)})
        self.guard = PathGuard(roots)
        self.roots: list[Path] = list(self.guard.roots)
        self.index_path = Path(index_path) if index_path else default_index_path(self.roots)
        self.store = IndexStore(self.index_path)
        self._rules = [IgnoreRules(root, exclude) for root in self.roots]
        self.indexer = Indexer(self.store, self.guard, self._rules,
                               parse_on_demand=parse == "on-demand")
        # a file whose parse was deferred is parsed before its references are read
        self.store.parse_for_references = self._parse_for_references
        self.scan = WorkspaceScan(self.roots, self._rules, exclude)
        self.searcher = Searcher(self.store, self.guard)
        self._keep_executable_bits = keep_executable_bits
        # Watching starts before a walk, so no change made meanwhile is missed (a tree never
        # fully indexed: after its first build, see WatchAfterFirstBuild).
        self._changes: ChangeSource = change_source(
            self.guard, self._rules, watch and not one_call, self.store, one_call=one_call,
            first_build=self.store.get_meta(COMPLETE_KEY) != "1")
        self._sync_lock = threading.RLock()
        self._build_lock = threading.Lock()
        self._completion_lock = threading.Lock()  # held by a build's second phase
        self._start_lock = threading.Lock()
        self._ready = threading.Event()
        self._pending: list[FileChange] = []
        self._thread: threading.Thread | None = None
        self._deferred: threading.Timer | None = None  # a build waiting for its start
        self._closed = False
        self.last_stats: IndexStats | None = None
        self.ready_wait_seconds = READY_WAIT_SECONDS
        self.build_error: BaseException | None = None
        # A one-shot caller (the CLI) answers from a scan first and builds afterwards.
        self.scan_before_build = False
        # A one-shot caller found a build running in another process, or a parse to resume
        # there: the build, its second phase included, may take minutes, so text searches
        # scan even over a complete index.
        self.built_elsewhere = False
        # Held around every build: a one-shot caller's lock between processes, so that it
        # waits for a build another process runs on the same index instead of doubling it.
        self.build_guard: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext

    # Reading, navigating, outlining and writing are made on first use: a one-shot search
    # (the command line's first answer) does not import them.

    @functools.cached_property
    def reader(self) -> Reader:
        from sari_core.engine.navigation.reading import Reader
        return Reader(self.guard, self.store, self._symbols_ready)

    @functools.cached_property
    def navigator(self) -> Navigator:
        from sari_core.engine.navigation.navigation import Navigator
        return Navigator(self.store, self.guard)

    @functools.cached_property
    def outliner(self) -> Outliner:
        from sari_core.engine.navigation.outline import Outliner
        return Outliner(self.guard, self.store, self._symbols_ready)

    @functools.cached_property
    def mutator(self) -> Mutator:
        from sari_core.engine.changes.mutations import Mutator
        return Mutator(self.guard, self._keep_executable_bits)

    @property
    def keep_executable_bits(self) -> bool:
        """Whether an edit or write over an executable file keeps its exec bits."""
        return self._keep_executable_bits

    @keep_executable_bits.setter
    def keep_executable_bits(self, keep: bool) -> None:
        self._keep_executable_bits = keep
        if "mutator" in self.__dict__:  # already made
            self.mutator.keep_executable_bits = keep

    # --- the index ------------------------------------------------------------------

    @property
    def index_ready(self) -> bool:
        return self._ready.is_set()

    @property
    def index_complete(self) -> bool:
        """Whether a full build ever finished (an older index answers while it refreshes)."""
        return self._ready.is_set() or self.store.get_meta(COMPLETE_KEY) == "1"

    def index_progress(self) -> tuple[int, int] | None:
        """(files indexed, files to index) while a build runs in the background, else None
        (total 0 while the tree is still being walked)."""
        if self._ready.is_set() or self._thread is None or not self._thread.is_alive():
            return None
        return self.indexer.progress

    def _answer_from_scan(self) -> bool:
        """No full build ever finished and one runs in the background (or the caller builds
        after answering), or another process is building the index now: a scan answers, at
        once."""
        thread = self._thread
        building = self.scan_before_build or self._deferred is not None or (
            thread is not None and thread.is_alive())
        return building and (not self.index_complete or self.built_elsewhere)

    def ensure_index(self, progress: bool | None = None, *, lowered: bool = False,
                     complete: bool = True) -> IndexStats:
        """Build or refresh the index (incremental); a progress bar only on a terminal;
        ``lowered``: at a lower CPU priority (a background build).

        A first build answers every kind of search once its first phase is in (the texts,
        their trigrams, definitions read from definition lines); its second phase, the
        parse of each source file, follows at a lower priority (:meth:`complete_index`),
        unless ``complete`` is false.
        """
        stats = self._refresh_index(progress, lowered)
        if complete:
            self.complete_index(progress, lowered=True)
        return stats

    def complete_index(self, progress: bool | None = None, *, lowered: bool = True) -> int:
        """The second phase of a build: every file whose symbols are pending is parsed, its
        symbols replacing the definitions read from its definition lines. Searches go on
        meanwhile (no build lock is held: a walk leaves the pending files to this).

        :return: the files parsed.
        """
        run = run_lowered if lowered else run_here
        with self._completion_lock, self.build_guard():
            if self.indexer.cancelled.is_set():
                return 0
            return run(lambda: self.indexer.complete_symbols(progress=wants_progress(progress)))

    def _refresh_index(self, progress: bool | None, lowered: bool) -> IndexStats:
        run = run_lowered if lowered else run_here
        with self._build_lock, self.build_guard():
            first = isinstance(self._changes, WatchAfterFirstBuild)
            self._changes.prime()
            stats = run(lambda: self.indexer.refresh(progress=wants_progress(progress)))
            if first and not self.indexer.cancelled.is_set():  # (close() cancels, then closes)
                with self._sync_lock:  # watch from now, and walk again for what changed meanwhile
                    self._changes = change_source(self.guard, self._rules, True, self.store)
                caught = run(lambda: self.indexer.refresh(report=True)).changes
                with self._sync_lock:
                    self._pending.extend(caught)
            self.last_stats = stats
            if not self.indexer.cancelled.is_set():
                self._ready.set()
            return stats

    def start_background_index(self, delay: float = 0.0) -> None:
        """Build or refresh the index in a thread; returns at once.

        :param delay: start the build only after this many seconds, or as soon as a search
            was answered from a scan or a call needs the index, whichever comes first: the
            first calls of a fresh server (answered from a scan) get the CPU to themselves.
        """
        with self._start_lock:
            if self._thread is not None or self._ready.is_set() \
                    or self.indexer.cancelled.is_set():  # closed
                return
            if delay > 0:
                if self._deferred is None:
                    self._deferred = threading.Timer(delay, self.start_background_index)
                    self._deferred.daemon = True
                    self._deferred.start()
                return
            if self._deferred is not None:
                self._deferred.cancel()  # harmless from the timer's own thread
                self._deferred = None
            self._thread = threading.Thread(target=self._build_in_background, name="sari-index",
                                            daemon=True)
            self._thread.start()

    def _build_in_background(self) -> None:
        try:  # calls answered meanwhile (a scan, a read) come first (see build_priority)
            self.ensure_index(progress=False, lowered=True)
        except Exception as exc:  # noqa: BLE001 - reported through index_ready=False and the log
            self.build_error = exc
            log.error("sari: building the index of %s failed: %s", self.roots[0], exc)

    def wait_for_index(self, timeout: float | None) -> bool:
        """Block until the index is built (building it now if nobody started it); ``timeout``
        bounds the wait for a background build (None: no bound)."""
        if self._ready.is_set():
            return True
        if self._thread is None and self._deferred is not None:
            self.start_background_index()  # needed now: the delay is over
        thread = self._thread
        if thread is None:
            self.ensure_index()
            return self._ready.is_set()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._ready.is_set():
            if not thread.is_alive():  # the build failed or was cancelled
                return self._ready.is_set()
            remaining = 0.1 if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._ready.wait(min(remaining, 0.1))
        return True

    def _symbols_ready(self) -> bool:
        ready = self.wait_for_index(self.ready_wait_seconds)
        self._sync()
        return ready

    # --- changes on disk ------------------------------------------------------------

    def _sync(self, touching: Sequence[Key] = ()) -> None:
        """Apply the changes seen on disk to the index; queue them for poll_changes.

        :param touching: paths the call is about to use, re-checked as well when the
            change source alone may miss recent changes (late events, rate-limited sweep).
        """
        with self._sync_lock:
            if self._closed:
                return
            if not self._ready.is_set() and isinstance(self._changes, StatSweep):
                # Before the first build the build is the sweep (and primes the stat check
                # itself): a drain here would walk every folder for nothing.
                return
            keys, sweep = self._changes.drain(touching)
            if sweep:
                if not self._ready.is_set():
                    return  # the first build is the sweep
                with self._build_lock:  # (the change source primed itself for this walk)
                    changes = self.indexer.refresh(report=True).changes
            elif keys:
                changes = self.indexer.sync(keys, report_new=self._ready.is_set())
            else:
                return
            self._pending.extend(changes)

    def poll_changes(self) -> list[FileChange]:
        """Files changed on disk outside Sari since the last poll, already re-indexed."""
        self._sync()
        with self._sync_lock:
            changes, self._pending = self._pending, []
        return changes

    # --- the engine protocol --------------------------------------------------------

    def _touching(self, target: str | None) -> list[Key]:
        """``target`` as a key to re-check, when the change source is not exact by itself."""
        if self._changes.exact or not target:
            return []
        try:
            resolved = self.guard.resolve(target, kind="any", must_exist=False)
        except SariError:
            return []  # the read or edit itself reports the bad path
        return [(resolved.root_index, resolved.rel)]

    def file_name(self, target: str) -> str | None:
        try:
            return self.guard.resolve(target, kind="any", must_exist=False).display
        except SariError:
            return None  # the read or edit itself reports the bad path

    def read(self, call: ReadCall) -> ReadResult:
        if call.mode == "outline":  # a file or a folder: its symbols come from the index
            self._sync(self._touching(call.target))
            self._parse_if_deferred(call.target)
            return self.outliner.read(call)
        target = call.path if call.mode == "symbol" else call.target
        touching = self._touching(target)
        if touching:
            self._sync(touching)
        if call.mode == "symbol":
            self._parse_if_deferred(target)
        return self.reader.read(call)

    def _parse_for_references(self, names: Sequence[str],
                              file_ids: Sequence[int] | None) -> int:
        with work_budget.paused():  # the index's own debt: not the search's deadline
            return self.indexer.parse_for_references(names, file_ids)

    def _parse_if_deferred(self, target: str | None) -> None:
        """Parse the file ``target`` names if its parse was deferred (an outline or a
        symbol read wants its own symbols, not its definition lines)."""
        if not target or not self.store.deferred_any():
            return
        try:
            resolved = self.guard.resolve(target, kind="any", must_exist=False)
        except SariError:
            return  # the read itself reports the bad path
        row = self.store.file(resolved.root_index, resolved.rel)
        if row is not None and row.parse_deferred:
            self.indexer.parse_deferred([row.id])

    def search(self, call: SearchCall) -> SearchResult:
        result = self._search(call)
        parsed, words = call.kind in PARSED_KINDS, call.kind == "text" and not call.literal
        if (parsed or words) and self.index_complete and self.store.symbols_pending_any():
            if parsed:
                result.notes.append(DEFINITION_LINES_NOTE)
                result.extra["symbols"] = "definition lines"
            else:
                result.notes.append(WORDS_PENDING_NOTE)
        elif call.kind == "symbol" and self.index_complete and self.store.deferred_any():
            result.notes.append(UNPARSED_NOTE)
            result.extra["symbols"] = "definition lines where not parsed"
        return result

    def _search(self, call: SearchCall) -> SearchResult:
        if call.kind in SCANNED_KINDS and self._answer_from_scan():
            with self.indexer.calls_first():  # the first answers do not wait behind the build
                result = scan_search(self.searcher, self.scan, call)
            if self._deferred is not None:
                self.start_background_index()  # answered: the build need not wait longer
            return result
        ready = self.wait_for_index(self.ready_wait_seconds)
        self._sync()
        with work_budget.bounded() as budget:  # rg's file list and the ranking: one deadline
            found = self._regex_files(call)
            if found is not None:  # ranked from the index, as any regex search is
                return self.searcher.search(call, index_ready=ready, files=found)
            if call.kind in ("references", "callers", "implementations"):
                result = self.navigator.search(call, index_ready=ready)
                partial = budget.note(call.kind)  # its text checks stopped at the deadline
                if partial is not None:
                    result.notes.append(partial)
                    result.truncated = True
                return result
            return self.searcher.search(call, index_ready=ready)

    def _regex_files(self, call: SearchCall) -> list[FileHit] | None:
        """The files a regex call matches, found by ripgrep: over the tree for a pattern the
        index cannot narrow, over the index's candidates otherwise (None: the index's own)."""
        if call.kind != "regex":
            return None
        if regex_routing.goes_to_ripgrep(self.searcher, call):
            return regex_routing.ripgrep_files(self.scan, self.store, call)
        return regex_routing.ripgrep_among_candidates(self.scan, self.store, call)

    def matching_files(self, call: SearchCall) -> list[str]:
        """Every file a text or regex query matches (the set ``total`` counts)."""
        self.wait_for_index(None)
        self._sync()
        found = self._regex_files(call)
        if found is not None:
            return [self._display(hit) for hit in found]
        return [self._display(hit) for hit in self.searcher.files(call)]

    def plan_mutation(self, call: MutationCall) -> list[FileChange]:
        self._sync(self._touching(call.path))
        return self.mutator.plan(call)

    def apply_mutation(self, changes: list[FileChange]) -> None:
        with self._sync_lock:
            written = self.mutator.apply(changes)
            # Index the new text now: the watcher's event for this write then finds the
            # same hash and does not report Sari's own write as an external change.
            self.indexer.sync([(target.root_index, target.rel) for target in written],
                              report_new=False)

    def reference_counts(self) -> dict[str, int]:
        """Per file: how many other files reference a symbol it defines."""
        self.wait_for_index(None)
        self._sync()
        return {self.guard.display(root, path): count
                for (root, path), count in sorted(reference_counts(self.store).items())}

    def definitions(self, query: str, mode: MatchMode | None) -> list[Definition]:
        """Every indexed definition of the names ``query`` matches (none before the index
        is built: a caller then asks something slower)."""
        return self.navigator.definitions(query, mode) if self.index_ready else []

    def index_status(self) -> dict[str, object]:
        """What ``sari doctor`` and ``sari index`` report about the index."""
        files, text_files = self.store.count_files()
        return {"path": str(self.index_path), "ready": self.index_ready, "files": files,
                "text_files": text_files, "symbols": self.store.count_symbols(),
                "bytes": index_bytes(self.index_path)}

    def close(self) -> None:
        if self._closed:
            return
        self.indexer.cancelled.set()
        with self._start_lock:
            if self._deferred is not None:
                self._deferred.cancel()
                self._deferred = None
        if self._thread is not None:
            self._thread.join(timeout=30)
        with self._sync_lock:
            self._closed = True
            self._changes.close()
            self.store.close()
            self.guard.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _display(self, hit: FileHit) -> str:
        return self.guard.display(hit.root, hit.path)
