"""A symbol-extraction worker process: ``python -m sari_core.engine.symbol_worker``.

It reads length-prefixed ``marshal`` frames from stdin, each a batch of
``(file_id, language, data)``, and answers each with a frame holding
``(batch_id, [(file_id, symbols), ...])``. A plain subprocess rather than
``multiprocessing``: nothing of the parent's ``__main__`` is imported again, so a
script using the engine needs no ``if __name__ == "__main__"`` guard.
"""

from __future__ import annotations

import marshal
import struct
import sys
from typing import IO

from sari_core.engine.symbols import extract_batch

FRAME = struct.Struct("<Q")


def read_frame(stream: IO[bytes]) -> bytes | None:
    header = stream.read(FRAME.size)
    if len(header) < FRAME.size:
        return None
    (size,) = FRAME.unpack(header)
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
    while True:
        frame = read_frame(source)
        if frame is None:
            return 0
        batch_id, jobs = marshal.loads(frame)
        write_frame(sink, marshal.dumps((batch_id, extract_batch(jobs))))


if __name__ == "__main__":
    sys.exit(main())
