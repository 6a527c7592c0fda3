"""Records a server could not write before it stopped, kept on disk until the database answers.

When a server stops while its PostgreSQL database is away, what waits in its queue is
written as JSON lines to a private file in the state folder (one folder per database,
named by a hash of its URL without the password). The next server to open that database
on this machine claims the files, hands their records to its writer, and deletes each
file once the writer has committed it. Executions are keyed by their id, so one written
twice (a server killed between commit and delete) is not doubled.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

from sari_core import private_file, state_dir
from sari_persistence.records import (
    ChatSessionRecord,
    ExecutionRecord,
    ExecutionRow,
    FrameRecord,
    MetricsRecord,
    execution_row,
    stored_frame,
)

log = logging.getLogger(__name__)
CLAIMED = ".claimed"


class SpooledExecution(NamedTuple):
    """An executions row read back from a spool file (already redacted and bounded)."""

    row: tuple[Any, ...]


def folder_for(location: str) -> Path:
    """The spool folder of one database (``location``: its URL as shown, password hidden)."""
    digest = hashlib.sha256(location.encode("utf-8")).hexdigest()[:16]
    return state_dir() / "execution_log_spool" / digest


def _line(record: Any, cap: int, text_chars: int, machine: str | None) -> dict[str, Any]:
    if isinstance(record, (ExecutionRecord, ExecutionRow)):
        return {"kind": "execution", "row": list(execution_row(record, cap, text_chars, machine))}
    if isinstance(record, SpooledExecution):
        return {"kind": "execution", "row": list(record.row)}
    if isinstance(record, FrameRecord):  # stored as the database would store it
        return {"kind": "frame", "fields": asdict(stored_frame(record))}
    kinds = {ChatSessionRecord: "chat_session", MetricsRecord: "metrics"}
    return {"kind": kinds[type(record)], "fields": asdict(record)}


def write(folder: Path, records: list[Any], cap: int, text_chars: int,
          machine: str | None) -> Path:
    """Write ``records`` to a new private spool file; its path."""
    path = folder / f"{os.getpid()}-{time.time_ns()}.jsonl"
    private_file(path)
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(_line(record, cap, text_chars, machine),
                                    ensure_ascii=False, default=str) + "\n")
    return path


def _record(line: dict[str, Any]) -> Any:
    kind = line["kind"]
    if kind == "execution":
        return SpooledExecution(tuple(line["row"]))
    model = {"frame": FrameRecord, "chat_session": ChatSessionRecord,
             "metrics": MetricsRecord}[kind]
    return model(**line["fields"])


def claim(folder: Path) -> list[tuple[Path, list[Any]]]:
    """Take every spool file of ``folder`` (renamed first, so two servers never share one)."""
    if not folder.is_dir():
        return []
    claimed = []
    for path in sorted(folder.glob("*.jsonl")):
        mine = path.with_name(f"{path.stem}.{os.getpid()}{CLAIMED}")
        try:
            path.rename(mine)
        except OSError:  # another server took it first
            continue
        with mine.open(encoding="utf-8") as handle:
            records = [_record(json.loads(line)) for line in handle if line.strip()]
        claimed.append((mine, records))
    return claimed


def replay(store: Any, folder: Path) -> int:
    """Hand the spooled records of ``folder`` to ``store``; each file is deleted once committed."""
    claimed = claim(folder)
    total = 0
    for path, records in claimed:
        accepted = sum(store.submit(record) for record in records)
        total += accepted
        log.warning("execution log: %d records kept on disk by a server that stopped while "
                    "the database was away are being written (%s)", accepted, path.name)
    if claimed:
        threading.Thread(target=_delete_when_written, args=(store, [p for p, _ in claimed]),
                         name="sari-persistence-spool", daemon=True).start()
    return total


def _delete_when_written(store: Any, paths: list[Path]) -> None:
    while not store.writer.closed:
        if store.flush(timeout=5.0) and not store.writer.database_away:
            for path in paths:
                path.unlink(missing_ok=True)
            return
        time.sleep(1.0)
