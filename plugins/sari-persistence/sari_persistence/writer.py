"""The writer thread: takes records off the hot path and commits them in batches.

Callers only append to a :class:`queue.SimpleQueue` (C-implemented, reentrant, safe
even inside a signal handler). One thread owns the write connection: woken by the
first record, it lingers ``flush_interval`` (no wake-up per record), then commits
everything queued in transactions of at most ``batch_size``. A hard kill therefore
loses at most the records of the current linger; SQLite's WAL guarantees the file
itself never corrupts.

Jobs (compaction, ingestion) run on the same thread in queue order, so they see
every record enqueued before them. :meth:`BatchWriter.flush` waits for
everything enqueued so far. ``close`` (also run at interpreter exit and, when
installed, on SIGTERM) drains the queue before the thread stops.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sari_persistence.exit_flush import forget_writer, track_writer
from sari_persistence.outage import DatabaseOutage
from sari_persistence.schema import ExecutionLogUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")
ApplyBatch = Callable[[Any, list[Any]], None]
_LOCK_RETRIES = 3
# While the database is away: the first retry after this long, doubling up to the cap.
_RETRY_FIRST = 0.1
_RETRY_CAP = 1.0
# How long closing waits for an away database before counting what is left as lost.
CLOSE_GRACE_SECONDS = 5.0
# How often a caller waiting on the writer checks whether the database went away.
_AWAY_CHECK = 0.05


@dataclass
class _Job:
    fn: Callable[[Any], Any]
    future: Future[Any] = field(default_factory=Future)


@dataclass
class _Flush:
    done: threading.Event = field(default_factory=threading.Event)


_STOP = object()


def _is_control(item: Any) -> bool:
    return item is _STOP or isinstance(item, (_Job, _Flush))


@dataclass
class WriterStats:
    """Counters of one writer (all monotonic)."""

    enqueued: int = 0
    committed: int = 0
    dropped_full: int = 0
    failed: int = 0
    batches: int = 0
    outages: int = 0
    lost: int = 0  # kept through an outage, then given up at close (the database never came back)
    spilled: int = 0  # ... and kept on disk instead, for the next server to write


class BatchWriter:
    """One write connection, one thread, batched transactions.

    :param connect: opens the write connection (called on the writer thread).
    :param apply_batch: writes a list of records inside an open transaction.
    :param flush_interval: seconds a record may linger before its batch commits.
    :param on_commit: called on the writer thread with the running committed count.
    :param release: gives the write connection back (default: closes it).
    :param transient: True for an error meaning the database is away for now: the batch
        is kept and retried until it answers (new records wait in the bounded queue; what
        does not fit is dropped and counted), instead of being counted as failed.
    :param describe: an error as it may be logged (a database URL's password removed).
    :param connect_at_start: open the connection before the constructor returns (its error
        is raised there); otherwise the first batch opens it.
    :param spill: keeps records the away database never took before closing gave up (on
        disk); True when it did. Without it, or when it fails, they are counted as lost.
    """

    def __init__(self, connect: Callable[[], Any], apply_batch: ApplyBatch, *,
                 flush_interval: float = 0.05, batch_size: int = 256, queue_size: int = 10000,
                 on_commit: Callable[[int], None] | None = None,
                 release: Callable[[Any], None] | None = None,
                 transient: Callable[[BaseException], bool] | None = None,
                 describe: Callable[[BaseException], str] = str,
                 connect_at_start: bool = True,
                 spill: Callable[[list[Any]], bool] | None = None) -> None:
        self._connect = connect
        self._release = release or (lambda conn: conn.close())
        self._transient = transient or (lambda exc: False)
        self._describe = describe
        self._conn: Any = None
        self._connect_at_start = connect_at_start
        self._apply_batch = apply_batch
        self.flush_interval = flush_interval
        self.batch_size = batch_size
        self.queue_size = queue_size
        self.on_commit = on_commit
        self.stats = WriterStats()
        self._outage = DatabaseOutage(self.stats, queue_size, describe, spill)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._urgent = threading.Event()
        self._closed = False
        self._started = threading.Event()
        self._start_error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="sari-persistence-writer",
                                        daemon=True)
        self._thread.start()
        self._started.wait()
        if self._start_error is not None:
            raise self._start_error
        track_writer(self)

    # --- producer side (any thread, signal-safe) ----------------------------------------

    def submit(self, record: Any) -> bool:
        """Enqueue a record without blocking; False (and counted) when full or closed."""
        if self._closed or self._queue.qsize() >= self.queue_size:
            self.stats.dropped_full += 1
            if not self._closed:
                self._outage.report_drop()
            return False
        self.stats.enqueued += 1
        self._queue.put(record)
        return True

    def run_job(self, fn: Callable[[Any], T], timeout: float | None = 30.0) -> T:
        """Run ``fn(connection)`` on the writer thread after everything queued; return its value.

        ``fn`` runs inside ``BEGIN IMMEDIATE``; it is committed when it returns and rolled
        back when it raises (the exception is re-raised here).
        """
        if self._closed:
            raise RuntimeError("the execution log writer is closed")
        if self._outage.away:
            raise ExecutionLogUnavailable("the execution log database is away; records are kept "
                                          "and written when it answers")
        job = _Job(fn)
        self._queue.put(job)
        self._urgent.set()
        finished = self._wait_unless_away(
            lambda seconds: not futures.wait([job.future], seconds).not_done, timeout)
        if not finished and job.future.cancel():
            raise ExecutionLogUnavailable("the execution log database is away; records are kept "
                                          "and written when it answers")
        return job.future.result(timeout)  # type: ignore[no-any-return]

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until every record enqueued before this call is committed (or failed)."""
        if self._closed or not self._thread.is_alive():
            return True
        if self._outage.away:
            return False  # nothing can be committed now; a reader must not wait for it
        marker = _Flush()
        self._queue.put(marker)
        self._urgent.set()
        return self._wait_unless_away(marker.done.wait, timeout)

    def _wait_unless_away(self, wait: Callable[[float], bool], timeout: float | None) -> bool:
        """``wait(seconds)`` until it is True; give up early when the database is away."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            step = _AWAY_CHECK if deadline is None else min(_AWAY_CHECK,
                                                            deadline - time.monotonic())
            if wait(max(step, 0.0)):
                return True
            if self._outage.away or not self._thread.is_alive():
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def close(self, timeout: float = 30.0, *, from_signal: bool = False) -> None:
        """Commit what is queued, stop the thread, close the connection. Idempotent.

        ``from_signal``: called from a signal handler, which may have interrupted this
        thread inside ``Event.set``; only the reentrant queue is touched then, and the
        writer notices the stop when its linger ends (at most ``flush_interval``).
        """
        if self._closed:
            return
        self._outage.close_deadline = time.monotonic() + min(timeout, CLOSE_GRACE_SECONDS)
        self._closed = True
        if self._thread.is_alive():
            self._queue.put(_STOP)
            if not from_signal:
                self._urgent.set()
            if threading.current_thread() is not self._thread:
                self._thread.join(timeout)
                if self._thread.is_alive():
                    # The process may exit now and take the daemon thread with it: every
                    # accepted record not yet committed or failed is counted (a batch being
                    # committed at this moment may still make it).
                    stats = self.stats
                    left = stats.enqueued - stats.committed - stats.failed - stats.lost
                    stats.lost += left
                    log.error("execution log: %d records were still waiting after %.0f s of "
                              "closing; they are counted as lost", left, timeout)
        forget_writer(self)

    @property
    def pending(self) -> int:
        return self._queue.qsize()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def database_away(self) -> bool:
        """True while the database does not answer (records wait in the queue)."""
        return self._outage.away

    # --- the thread -------------------------------------------------------------------

    def _run(self) -> None:
        try:
            if self._connect_at_start:
                self._conn = self._connect()
        except BaseException as exc:  # noqa: BLE001 - re-raised by the constructor
            if not (isinstance(exc, Exception) and self._transient(exc)):
                self._start_error = exc
                self._started.set()
                return
            self._outage.began(exc)  # serve anyway; the first batch waits for the database
        self._started.set()
        try:
            self._loop()
        finally:
            self._drop_connection()

    def _loop(self) -> None:
        while True:
            first = self._queue.get()  # idle: the first item of the next batch wakes us
            if not _is_control(first):
                # Linger without a wake-up per record (each would cost the callers a thread
                # switch); flush, jobs and close cut the linger short through the event.
                self._urgent.wait(self.flush_interval)
            self._urgent.clear()
            items = [first]
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if self._process(items):
                return

    def _process(self, items: list[Any]) -> bool:
        """Commit records in batches and run controls in queue order; True after a stop."""
        batch: list[Any] = []
        stopped = False
        for item in items:
            if not _is_control(item):
                batch.append(item)
                if len(batch) >= self.batch_size:
                    self._commit(batch)
                    batch = []
                continue
            if batch:
                self._commit(batch)
                batch = []
            if isinstance(item, _Flush):
                item.done.set()
            elif isinstance(item, _Job):
                self._run_job(item)
            else:
                # Stop: whatever is still queued (enqueued concurrently with close) is written.
                stopped = True
        if batch:
            self._commit(batch)
        if stopped:
            leftovers = []
            while True:
                try:
                    leftovers.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if leftovers:
                self._process(leftovers)
        return stopped

    def _connection(self) -> Any:
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                self._release(conn)
            except Exception:  # noqa: BLE001 - a dead connection may refuse even that
                log.debug("execution log: releasing a dead connection failed", exc_info=True)

    def _transaction(self, fn: Callable[[Any], T]) -> T:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            value = fn(conn)
            conn.execute("COMMIT")
        except BaseException:
            # The connection may be gone; the error re-raised says why.
            with contextlib.suppress(Exception):
                conn.execute("ROLLBACK")
            raise
        return value

    def _commit(self, batch: list[Any]) -> None:
        attempt = 0
        retry_in = _RETRY_FIRST
        while True:
            try:
                self._transaction(lambda conn: self._apply_batch(conn, batch))
            except Exception as exc:  # noqa: BLE001 - a bad record must not stop the writer
                if self._transient(exc):
                    self._drop_connection()
                    self._outage.began(exc)
                    if self._outage.wait(retry_in):
                        retry_in = min(retry_in * 2, _RETRY_CAP)
                        continue
                    self._outage.lost(batch)
                    return
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc) \
                        and attempt + 1 < _LOCK_RETRIES:
                    attempt += 1
                    continue
                self._failed(batch, exc)
                return
            self._outage.ended()
            self.stats.committed += len(batch)
            self.stats.batches += 1
            if self.on_commit is not None:
                self.on_commit(self.stats.committed)
            return

    def _failed(self, batch: list[Any], exc: BaseException) -> None:
        self.stats.failed += len(batch)
        log.error("execution log: a batch of %d records was not written: %s", len(batch), exc)

    def _run_job(self, job: _Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        try:
            value = self._transaction(job.fn)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            if isinstance(exc, Exception) and self._transient(exc):
                self._drop_connection()
                self._outage.began(exc)
                exc = ExecutionLogUnavailable(f"the execution log database is away: "
                                              f"{self._describe(exc)}")
            job.future.set_exception(exc)
        else:
            job.future.set_result(value)
