"""Running symbol extraction beside the text indexing, in worker processes when it pays.

tree-sitter holds the GIL while it parses, so a large build sends the parsing (and
the word splitting that follows a file's definitions) to worker processes
(:mod:`sari_core.engine.index.symbol_worker`) while the main thread feeds SQLite, whose FTS5 tokenizing runs without the GIL. Small batches (a
re-index, a handful of new files) parse in-process: a worker costs more to start
than they take.

A worker that fails (it died, or its output is unreadable: a profiler or a library writing
to its stdout) is stopped and replaced by a new one; its unanswered batches are parsed
in-process (a batch that crashed a worker would crash its replacement too). Replacements
are bounded per build: workers failing again and again leave the rest to the main process.
"""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from sari_core.engine.index.symbol_worker import (
    PARSE,
    Parsed,
    parse_batch,
    read_frame,
    write_frame,
)
from sari_core.engine.index.symbols import supported

log = logging.getLogger(__name__)

POOL_THRESHOLD_FILES = 400  # fewer files than this parse in-process
BATCH_BYTES = 512 * 1024
# Source bytes sent to workers and not answered yet, beyond which the build stores what
# came back before reading more: the files waiting for a worker are held in memory, and
# their results after. Six batches keep a worker busy; twelve cost 20-50 MB of peak RSS
# at 143 MB of text for no CPU saved.
BACKLOG_BYTES = 3 * 1024 * 1024

# Workers replaced per build at most, beyond the first ones (a worker that fails at every
# start, e.g. under a profiler writing to its stdout, must not be restarted forever).
MAX_REPLACEMENTS = 4

Batch = list[tuple[int, str, bytes]]
Results = list[Parsed]
# What a worker's reader thread hands over: a batch's results, or None when it is done.
Reply = tuple["_Worker", int, Results] | tuple["_Worker", None, None]


def worker_count() -> int:
    """``SARI_INDEX_WORKERS``, else one per core beyond the one feeding SQLite (1 to 4)."""
    override = os.environ.get("SARI_INDEX_WORKERS")
    if override is not None:
        return max(0, int(override))
    return min(4, max(1, (os.cpu_count() or 1) - 1))


class _Worker:
    """One worker process, fed by a writer thread and drained by a reader thread."""

    def __init__(self, results: queue.Queue[Reply]) -> None:
        package_parent = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent,
                                                           env.get("PYTHONPATH")]))
        # ``-m`` puts the working folder first on the module path: started from a folder
        # holding another sari_core (a checkout of another version, the workspace itself),
        # the worker would run that one. It starts in the folder of this package instead.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sari_core.engine.index.symbol_worker"], env=env,
            cwd=package_parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        self.outstanding: dict[int, Batch] = {}
        self.failed = False  # it died or wrote something unreadable: no batch goes to it
        self.closing = False
        self._results = results
        self._writer = threading.Thread(target=self._write, daemon=True, name="sari-symbols-in")
        self._reader = threading.Thread(target=self._read, daemon=True, name="sari-symbols-out")
        self._writer.start()
        self._reader.start()

    def submit(self, batch_id: int, batch: Batch, work: str) -> None:
        self.outstanding[batch_id] = batch
        self.inbox.put(marshal.dumps((batch_id, batch, work)))

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while (payload := self.inbox.get()) is not None:
                write_frame(stdin, payload)
        except OSError:
            pass  # the worker died; its outstanding batches are parsed in-process
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while (frame := read_frame(stdout)) is not None:
                batch_id, results = marshal.loads(frame)
                if not isinstance(batch_id, int) or not isinstance(results, list):
                    raise ValueError(f"not a batch's results: {type(results).__name__}")
                self._results.put((self, batch_id, results))
        except (OSError, ValueError, EOFError, TypeError) as exc:
            log.warning("sari: a symbol worker's output is unreadable (%s): it is replaced",
                        exc)
        if not self.closing:  # an end nobody asked for
            self.failed = True
        self._results.put((self, None, None))  # this worker is done (or failed)

    def stop(self) -> None:
        """End a failed worker at once (its output can no longer be trusted)."""
        self.failed = self.closing = True
        self.inbox.put(None)
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()

    def close(self) -> None:
        self.closing = True
        self.inbox.put(None)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class SymbolJobs:
    """Collects ``(file_id, language, data)`` and yields ``(file_id, symbols, chunks)`` back.

    :param work: what each file comes back with (see
        :func:`~sari_core.engine.index.symbol_worker.parse_batch`).
    """

    def __init__(self, expected_files: int, work: str = PARSE) -> None:
        self.work = work
        self._results: queue.Queue[Reply] = queue.Queue()
        self._workers: list[_Worker] = []
        if expected_files >= POOL_THRESHOLD_FILES:
            try:
                self._workers = [_Worker(self._results) for _ in range(worker_count())]
            except (OSError, ValueError, TypeError) as exc:  # no usable interpreter to spawn
                log.info("symbol extraction runs in-process: %s", exc)
                self.close()
        self._batch: Batch = []
        self._batch_bytes = 0
        self._next_id = 0
        self._ready: Results = []
        self._sizes: dict[int, int] = {}  # batch id -> its bytes, until it is answered
        self.backlog = 0  # bytes sent to workers and not answered yet
        self.replaced = 0  # workers that failed and were replaced

    def worker_pids(self) -> list[int]:
        """The process ids of the workers in use."""
        return [worker.process.pid for worker in self._workers]

    def add(self, file_id: int, language: str | None, data: bytes) -> None:
        if not supported(language):
            return
        assert language is not None
        self._batch.append((file_id, language, data))
        self._batch_bytes += len(data)
        if self._batch_bytes >= BATCH_BYTES:
            self._flush()

    def _flush(self) -> None:
        if not self._batch:
            return
        batch, self._batch, self._batch_bytes = self._batch, [], 0
        live = [worker for worker in self._workers
                if not worker.failed and worker.process.poll() is None]
        if not live:
            self._ready.extend(parse_batch(batch, self.work))
            return
        self._next_id += 1
        self._sizes[self._next_id] = sum(len(data) for _, _, data in batch)
        self.backlog += self._sizes[self._next_id]
        min(live, key=lambda worker: len(worker.outstanding)).submit(self._next_id, batch,
                                                                   self.work)

    def _answered(self, batch_id: int) -> None:
        self.backlog -= self._sizes.pop(batch_id, 0)

    def _take(self, item: Reply) -> None:
        worker, batch_id, results = item
        if batch_id is None:
            if worker.failed:
                self._replace(worker)
            return
        assert results is not None
        if worker.outstanding.pop(batch_id, None) is None:
            return  # not a batch this worker still owed (parsed here already)
        self._answered(batch_id)
        self._ready.extend(results)

    def _replace(self, worker: _Worker) -> None:
        """Stop a failed worker, parse what it owed here, and start another in its place."""
        if worker not in self._workers:
            return
        worker.stop()
        self._workers.remove(worker)
        for batch_id, batch in worker.outstanding.items():
            self._ready.extend(parse_batch(batch, self.work))
            self._answered(batch_id)
        worker.outstanding.clear()
        if self.replaced >= MAX_REPLACEMENTS:
            log.warning("sari: symbol workers keep failing: the main process parses the rest")
            return
        try:
            self._workers.append(_Worker(self._results))
        except (OSError, ValueError, TypeError) as exc:
            log.warning("sari: no symbol worker could replace a failed one: %s", exc)
            return
        self.replaced += 1

    def within_backlog(self) -> Iterator[Parsed]:
        """The results available now, and more, waiting, while the backlog is too long."""
        while self._workers and self.backlog > BACKLOG_BYTES:
            try:
                self._take(self._results.get(timeout=1.0))
            except queue.Empty:
                continue
        yield from self.completed()

    def completed(self) -> Iterator[Parsed]:
        """Results available now, without waiting."""
        while True:
            try:
                self._take(self._results.get_nowait())
            except queue.Empty:
                break
        ready, self._ready = self._ready, []
        yield from ready

    def finish(self) -> Iterator[Parsed]:
        """Every remaining result, waiting for the workers."""
        self._flush()
        while any(worker.outstanding for worker in self._workers):
            try:
                self._take(self._results.get(timeout=1.0))
            except queue.Empty:
                continue
        for worker in self._workers:  # whatever is still unanswered
            for batch_id, batch in worker.outstanding.items():
                self._ready.extend(parse_batch(batch, self.work))
                self._answered(batch_id)
            worker.outstanding.clear()
        ready, self._ready = self._ready, []
        yield from ready
        self.close()

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()
