"""An index worker process: ``python -m sari_core.engine.index.symbol_worker``.

It reads length-prefixed ``marshal`` frames from stdin, each a batch of
``(file_id, language, data)``, and answers each with a frame holding ``(batch_id,
[(file_id, (definitions, packed references), word chunks), ...])``: the parsing and the word
splitting of a source file, the CPU-bound part of indexing it, run here, on another
core than the one feeding SQLite. A build that parses on demand asks for the word chunks
alone, cut along the definition lines (:data:`CHUNKS`), and later for a file's symbols
alone (:data:`SYMBOLS`), its chunks staying as they were cut. A plain subprocess rather than
``multiprocessing``: nothing of the parent's ``__main__`` is imported again, so a
script using the engine needs no ``if __name__ == "__main__"`` guard.
"""

from __future__ import annotations

import gc
import marshal
import struct
import sys
from typing import IO

from sari_core.engine.files.decoding import decode
from sari_core.engine.index.fast_definitions import definitions as fast_definitions
from sari_core.engine.index.references import Split, split
from sari_core.engine.index.symbols import extract_batch
from sari_core.engine.index.word_chunks import Chunk, chunks

# ``(file_id, symbols, word chunks)``: None for what the batch's work leaves out
Parsed = tuple[int, Split | None, list[Chunk] | None]

# What a batch asks for: the parse and the word chunks along its definitions (a build),
# the word chunks along the definition lines alone (its parse deferred), or the parse
# alone (a deferred parse, the file's chunks staying as they were cut).
PARSE, CHUNKS, SYMBOLS = "parse", "chunks", "symbols"


def parse_batch(jobs: list[tuple[int, str, bytes]], work: str = PARSE) -> list[Parsed]:
    """``(file_id, language, data)`` -> ``(file_id, (definitions, packed references), word
    chunks)``: the chunks are those :func:`sari_core.engine.index.word_index.put_file` would
    compute from the file's stored text and definitions. The references are packed here
    (:mod:`sari_core.engine.index.references`): four in five symbols, sent and stored as
    one value per file.

    :param work: :data:`PARSE`; :data:`CHUNKS`: the chunks are cut along the definitions
        the first phase stored (:mod:`~sari_core.engine.index.fast_definitions`), and no
        symbols come back; :data:`SYMBOLS`: no chunks come back.
    """
    if work == CHUNKS:
        return [(file_id, None, _chunks_along_definition_lines(language, data))
                for file_id, language, data in jobs]
    if work == SYMBOLS:
        return [(file_id, split(symbols), None) for file_id, symbols in extract_batch(jobs)]
    out: list[Parsed] = []
    for (file_id, symbols), (_, _, data) in zip(extract_batch(jobs), jobs, strict=True):
        definitions, packed = split(symbols)
        out.append((file_id, (definitions, packed), chunks(decode(data).text, [
            (name, kind, line, end_line) for name, kind, _, line, end_line in definitions])))
    return out


def _chunks_along_definition_lines(language: str, data: bytes) -> list[Chunk]:
    text = decode(data).text
    return chunks(text, [(name, kind, line, end_line)
                         for name, kind, _, line, end_line in fast_definitions(language, text)])


FRAME = struct.Struct("<Q")
# No batch's frame comes near this: a larger length is bytes that are not a frame (a
# profiler or a library that wrote to the worker's stdout), refused before reading them.
MAX_FRAME_BYTES = 1 << 30


def read_frame(stream: IO[bytes]) -> bytes | None:
    header = stream.read(FRAME.size)
    if len(header) < FRAME.size:
        return None
    (size,) = FRAME.unpack(header)
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"not a frame: a length of {size} bytes")
    chunks = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(FRAME.pack(len(payload)) + payload)
    stream.flush()


def main() -> int:
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    # A batch makes hundreds of thousands of tuples and strings, none in a reference cycle:
    # the collector's automatic passes over them cost a tenth of the worker's CPU. It runs
    # once after each batch instead, over what that batch left (the modules are frozen).
    gc.freeze()
    gc.disable()
    while True:
        frame = read_frame(source)
        if frame is None:
            return 0
        batch_id, jobs, work = marshal.loads(frame)
        write_frame(sink, marshal.dumps((batch_id, parse_batch(jobs, work))))
        del jobs
        gc.collect()


if __name__ == "__main__":
    sys.exit(main())
