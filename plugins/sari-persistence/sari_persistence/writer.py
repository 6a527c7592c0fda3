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

import atexit
import logging
import os
import queue
import signal
import sqlite3
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
ApplyBatch = Callable[[sqlite3.Connection, list[Any]], None]
_LOCK_RETRIES = 3


@dataclass
class _Job:
    fn: Callable[[sqlite3.Connection], Any]
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


class BatchWriter:
    """One write connection, one thread, batched transactions.

    :param connect: opens the write connection (called on the writer thread).
    :param apply_batch: writes a list of records inside an open transaction.
    :param flush_interval: seconds a record may linger before its batch commits.
    :param on_commit: called on the writer thread with the running committed count.
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection], apply_batch: ApplyBatch, *,
                 flush_interval: float = 0.05, batch_size: int = 256, queue_size: int = 10000,
                 on_commit: Callable[[int], None] | None = None) -> None:
        self._connect = connect
        self._apply_batch = apply_batch
        self.flush_interval = flush_interval
        self.batch_size = batch_size
        self.queue_size = queue_size
        self.on_commit = on_commit
        self.stats = WriterStats()
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
        _OPEN_WRITERS.add(self)

    # --- producer side (any thread, signal-safe) ----------------------------------------

    def submit(self, record: Any) -> bool:
        """Enqueue a record without blocking; False (and counted) when full or closed."""
        if self._closed or self._queue.qsize() >= self.queue_size:
            self.stats.dropped_full += 1
            return False
        self.stats.enqueued += 1
        self._queue.put(record)
        return True

    def run_job(self, fn: Callable[[sqlite3.Connection], T], timeout: float | None = 30.0) -> T:
        """Run ``fn(connection)`` on the writer thread after everything queued; return its value.

        ``fn`` runs inside ``BEGIN IMMEDIATE``; it is committed when it returns and rolled
        back when it raises (the exception is re-raised here).
        """
        if self._closed:
            raise RuntimeError("the execution log writer is closed")
        job = _Job(fn)
        self._queue.put(job)
        self._urgent.set()
        return job.future.result(timeout)  # type: ignore[no-any-return]

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until every record enqueued before this call is committed (or failed)."""
        if self._closed or not self._thread.is_alive():
            return True
        marker = _Flush()
        self._queue.put(marker)
        self._urgent.set()
        return marker.done.wait(timeout)

    def close(self, timeout: float = 30.0, *, from_signal: bool = False) -> None:
        """Commit what is queued, stop the thread, close the connection. Idempotent.

        ``from_signal``: called from a signal handler, which may have interrupted this
        thread inside ``Event.set``; only the reentrant queue is touched then, and the
        writer notices the stop when its linger ends (at most ``flush_interval``).
        """
        if self._closed:
            return
        self._closed = True
        if self._thread.is_alive():
            self._queue.put(_STOP)
            if not from_signal:
                self._urgent.set()
            if threading.current_thread() is not self._thread:
                self._thread.join(timeout)
        _OPEN_WRITERS.discard(self)

    @property
    def pending(self) -> int:
        return self._queue.qsize()

    # --- the thread -------------------------------------------------------------------

    def _run(self) -> None:
        try:
            conn = self._connect()
        except BaseException as exc:  # noqa: BLE001 - re-raised by the constructor
            self._start_error = exc
            self._started.set()
            return
        self._started.set()
        try:
            self._loop(conn)
        finally:
            conn.close()

    def _loop(self, conn: sqlite3.Connection) -> None:
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
            if self._process(conn, items):
                return

    def _process(self, conn: sqlite3.Connection, items: list[Any]) -> bool:
        """Commit records in batches and run controls in queue order; True after a stop."""
        batch: list[Any] = []
        stopped = False
        for item in items:
            if not _is_control(item):
                batch.append(item)
                if len(batch) >= self.batch_size:
                    self._commit(conn, batch)
                    batch = []
                continue
            if batch:
                self._commit(conn, batch)
                batch = []
            if isinstance(item, _Flush):
                item.done.set()
            elif isinstance(item, _Job):
                self._run_job(conn, item)
            else:
                # Stop: whatever is still queued (enqueued concurrently with close) is written.
                stopped = True
        if batch:
            self._commit(conn, batch)
        if stopped:
            leftovers = []
            while True:
                try:
                    leftovers.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if leftovers:
                self._process(conn, leftovers)
        return stopped

    def _commit(self, conn: sqlite3.Connection, batch: list[Any]) -> None:
        for attempt in range(_LOCK_RETRIES):
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    self._apply_batch(conn, batch)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) and attempt + 1 < _LOCK_RETRIES:
                    continue
                self._failed(batch, exc)
                return
            except Exception as exc:  # noqa: BLE001 - a bad record must not stop the writer
                self._failed(batch, exc)
                return
            self.stats.committed += len(batch)
            self.stats.batches += 1
            if self.on_commit is not None:
                self.on_commit(self.stats.committed)
            return

    def _failed(self, batch: list[Any], exc: BaseException) -> None:
        self.stats.failed += len(batch)
        log.error("execution log: a batch of %d records was not written: %s", len(batch), exc)

    def _run_job(self, conn: sqlite3.Connection, job: _Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                value = job.fn(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            job.future.set_exception(exc)
        else:
            job.future.set_result(value)


_OPEN_WRITERS: weakref.WeakSet[BatchWriter] = weakref.WeakSet()
_sigterm_installed = False


def close_all_writers(*, from_signal: bool = False) -> None:
    """Flush and stop every open writer (interpreter exit, SIGTERM)."""
    for writer in list(_OPEN_WRITERS):
        try:
            writer.close(from_signal=from_signal)
        except Exception:  # exit paths must not raise
            log.exception("closing the execution log writer failed")


atexit.register(close_all_writers)


def install_sigterm_flush() -> bool:
    """On SIGTERM flush every writer, then let the previous disposition act.

    Installed once, from the main thread only (a Python restriction). A previous
    Python handler is chained; the default disposition is re-raised so the
    process still terminates with SIGTERM.
    """
    global _sigterm_installed
    if _sigterm_installed or threading.current_thread() is not threading.main_thread():
        return _sigterm_installed
    if not hasattr(signal, "SIGTERM"):
        return False
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: Any) -> None:
        close_all_writers(from_signal=True)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_IGN:
            return
        else:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
    _sigterm_installed = True
    return True
