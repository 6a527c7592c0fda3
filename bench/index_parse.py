"""Index workers' CPU by stage: what parsing a source file and splitting its words cost.

An index build sends each source file to a worker process
(:mod:`sari_core.engine.index.symbol_worker`), which parses it with tree-sitter, runs the
language's tags query, builds the symbol rows, cuts the text into word chunks and sends
it all back. This bench runs the same functions in-process over a corpus, stage by stage,
and prints the CPU-seconds of each (the best of ``--repeat`` runs) and MB of source per
CPU-second:

* ``parse``: tree-sitter parsing alone;
* ``query``: the tags query's matches over the parsed trees;
* ``symbols``: the rest of symbol extraction (reading the matches into rows, in Python);
* ``words``: the word chunks of each file (word splitting), timed alone;
* ``other``: the rest of a worker's run over the batches (decoding, freeing, collecting);
* ``transport``: ``marshal`` out and back in of each batch's results, as the pipe carries
  them (the worker's dump and the main process's load).

It also prints a digest of every file's symbols and word chunks: a change made for speed
must leave it as it was (run the bench before and after it, on the same corpus).

Usage: ``python bench/index_parse.py [--packages NAME...] [--corpus PATH] [--repeat N]
[--smoke]``
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import marshal
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from search import add_corpus_arguments, corpus_of

from sari_core.engine.files.decoding import decode
from sari_core.engine.files.textfile import language_of
from sari_core.engine.index.symbol_jobs import BATCH_BYTES
from sari_core.engine.index.symbol_worker import parse_batch
from sari_core.engine.index.symbols import MAX_SYMBOL_BYTES, extract, supported, toolkit
from sari_core.engine.index.word_chunks import chunks

Job = tuple[int, str, bytes]


def corpus_jobs(root: Path) -> list[Job]:
    """``(file_id, language, data)`` of each source file a build would send to a worker."""
    jobs: list[Job] = []
    for path in sorted(root.rglob("*")):
        language = language_of(path.name)
        if supported(language) and path.is_file():
            assert language is not None
            jobs.append((len(jobs), language, path.read_bytes()))
    return jobs


def batches(jobs: list[Job]) -> list[list[Job]]:
    """The jobs cut into batches of about ``BATCH_BYTES``, as the build sends them."""
    out: list[list[Job]] = [[]]
    size = 0
    for job in jobs:
        if size >= BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append(job)
        size += len(job[2])
    return out


def parse_only(language: str, data: bytes) -> object:
    kit = toolkit(language)
    return None if kit is None else kit.parser.parse(data)


def tag_matches(language: str, data: bytes) -> object:
    """Parsing and the tags query's matches, without reading them into rows."""
    from tree_sitter import QueryCursor

    kit = toolkit(language)
    return None if kit is None else QueryCursor(kit.query).matches(kit.parser.parse(data).root_node)


def best_cpu(function: Callable[[str, bytes], object], files: list[tuple[str, bytes]],
             repeat: int) -> float:
    """The least CPU time of ``repeat`` runs of ``function`` over every file, each
    result dropped at once (kept, millions of objects would make the collector's
    passes, not the stage, the cost)."""
    samples = []
    for _ in range(repeat):
        started = time.process_time()
        for language, data in files:
            function(language, data)
        samples.append(time.process_time() - started)
    return min(samples)


def measure(jobs: list[Job], repeat: int) -> dict[str, float]:
    """CPU-seconds per stage: parse, query and symbols each the difference of two runs,
    words and transport timed alone, and what is left of a worker's whole run."""
    files = [(language, data) for _, language, data in jobs if len(data) <= MAX_SYMBOL_BYTES]
    cut = batches(jobs)
    parse = best_cpu(parse_only, files, repeat)
    query = best_cpu(tag_matches, files, repeat)
    symbols = best_cpu(extract, files, repeat)
    texts = [(decode(data).text, [(name, kind, line, end) for name, kind, is_def, line, end
                                  in extract(language, data) if is_def])
             for _, language, data in jobs]
    words = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        for text, definitions in texts:
            chunks(text, definitions)
        words = min(words, time.process_time() - started)
    # A batch at a time, as a worker runs it (the collector run after each batch, not
    # during it), then its results out and back in through marshal.
    worker = transport = float("inf")
    gc.disable()
    for _ in range(repeat):
        started, moved = time.process_time(), 0.0
        for batch in cut:
            results = parse_batch(batch)
            before = time.process_time()
            marshal.loads(marshal.dumps(results))
            moved += time.process_time() - before
            del results
            gc.collect()
        worker = min(worker, time.process_time() - started - moved)
        transport = min(transport, moved)
    gc.enable()
    return {"parse": parse, "query": query - parse, "symbols": symbols - query, "words": words,
            "other": worker - symbols - words, "transport": transport}


def digest(jobs: list[Job]) -> str:
    """sha256 over every file's symbols and word chunks, in the order a worker sends them."""
    hashed = hashlib.sha256()
    for batch in batches(jobs):
        for result in parse_batch(batch):
            hashed.update(repr(result).encode("utf-8", "surrogatepass"))
    return hashed.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage (the best kept)")
    parser.add_argument("--smoke", action="store_true",
                        help="Sari's own engine sources, one run: checks the bench works (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        root, args.repeat = Path(__file__).resolve().parents[1] / "sari_core" / "engine", 1
    else:
        root = corpus_of(args)
    jobs = corpus_jobs(root)
    megabytes = sum(len(data) for _, _, data in jobs) / 1e6
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; {root}: {len(jobs):,} source files, {megabytes:.1f} MB")
    stages = measure(jobs, args.repeat)
    total = sum(stages.values())
    for stage, seconds in stages.items():
        rate = f"{megabytes / seconds:7.1f}" if seconds > 0 else "      -"
        print(f"{stage:<10} {seconds:6.2f} CPU-s  {100 * seconds / total:4.0f}%  {rate} "
              "MB per CPU-s")
    print(f"{'worker':<10} {total:6.2f} CPU-s  100%  {megabytes / total:7.1f} MB per CPU-s")
    print(f"output digest (symbols and word chunks): {digest(jobs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
