"""``sari log``: list sessions, show one session's executions and frames, export JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any, TextIO

from sari_core import SettingsError, SettingsSpec, SettingsStore
from sari_persistence import reads, schema
from sari_persistence.backends import PostgresBackend
from sari_persistence.settings import SECTION, PersistenceSettings

PREVIEW_CHARS = 120


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="execution log file (default: the persistence settings' "
                        "database_url or db_path, else execution_log.db in the state folder)")
    sub = parser.add_subparsers(dest="log_command", metavar="ACTION", required=True)
    sessions = sub.add_parser("sessions", help="list chat sessions and tool-call sessions")
    sessions.add_argument("--limit", type=int, default=50)
    sessions.add_argument("--json", action="store_true", help="print JSON")
    show = sub.add_parser("show", help="a session's executions, frames and compactions")
    show.add_argument("session", help="chat session id, client session id or kernel session key")
    show.add_argument("--limit", type=int, default=None, help="at most this many of each")
    show.add_argument("--json", action="store_true", help="print JSON")
    export = sub.add_parser("export", help="export as JSON lines (one record per line)")
    export.add_argument("--session", help="only this session (default: everything)")
    export.add_argument("-o", "--output", help="file to write (default: stdout)")


def _settings(workspace: Path) -> PersistenceSettings:
    store = SettingsStore.load([SettingsSpec(SECTION, PersistenceSettings)], workspace)
    settings: PersistenceSettings = store.get(SECTION)
    return settings


def _open(args: argparse.Namespace) -> tuple[AbstractContextManager[Any] | None, str]:
    """A context yielding a read connection, and where the log is (as it may be shown)."""
    if args.db:
        path = Path(args.db).expanduser()
    else:
        settings = _settings(Path.cwd())
        if settings.database_url is not None:
            backend = PostgresBackend(settings.database_url.get_secret_value(),
                                      pool_size=2,
                                      connect_timeout=settings.connect_timeout_seconds)
            return _backend_reading(backend), backend.location
        path = settings.resolved_db_path()
    if not path.exists():
        return None, str(path)
    return closing(schema.open_database(path)), str(path)


@contextmanager
def _backend_reading(backend: PostgresBackend) -> Iterator[Any]:
    try:
        with backend.reading() as conn:
            yield conn
    finally:
        backend.close()


def run(args: argparse.Namespace) -> int:
    try:
        opened, location = _open(args)
        if opened is None:
            print(f"sari log: no execution log yet at {location} (install sari-persistence and "
                  "run sari serve, or a Claude Code PreCompact hook, to create it).",
                  file=sys.stderr)
            return 0 if args.log_command != "show" else 1
        with opened as conn:
            if args.log_command == "sessions":
                return _sessions(conn, args, location)
            if args.log_command == "show":
                return _show(conn, args)
            return _export(conn, args)
    except (schema.ExecutionLogUnavailable, SettingsError) as exc:
        print(f"sari log: {exc}", file=sys.stderr)
        return 1


def _sessions(conn: Any, args: argparse.Namespace, path: str) -> int:
    chats = reads.chat_sessions(conn, args.limit)
    calls = reads.execution_sessions(conn, args.limit)
    if args.json:
        print(json.dumps({"db": path, "chat_sessions": [c.to_json() for c in chats],
                          "execution_sessions": calls}, indent=2, sort_keys=True))
        return 0
    print(f"Execution log: {path}")
    print(f"Chat sessions ({len(chats)}):")
    for chat in chats:
        details = " ".join(part for part in (chat.project_root or "", chat.model or "") if part)
        print(f"  {chat.session_id}  {reads.iso_time(chat.created_at)}  frames={chat.frames} "
              f"compactions={chat.compactions}  {details}".rstrip())
    print(f"Tool-call sessions ({len(calls)}):")
    for call in calls:
        print(f"  {call['session_key']}  executions={call['executions']} "
              f"refused={call['refused']}  last={call['last']}  ({call['source']})")
    return 0


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _show(conn: Any, args: argparse.Namespace) -> int:
    session = args.session
    chat = reads.chat_session(conn, session)
    executions = reads.executions(conn, session, args.limit)
    frames = reads.frames(conn, session, limit=args.limit)
    compactions = reads.compactions(conn, session)
    if chat is None and not executions and not frames:
        print(f"sari log: no session {session!r} in the execution log "
              "(see `sari log sessions`).", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"chat_session": chat.to_json() if chat else None,
                          "executions": [e.to_json() for e in executions],
                          "frames": [f.to_json() for f in frames],
                          "compactions": [c.to_json() for c in compactions]},
                         indent=2, sort_keys=True, default=str))
        return 0
    if chat is not None:
        print(f"Chat session {chat.session_id}  created {reads.iso_time(chat.created_at)}  "
              f"root={chat.project_root or '-'}  model={chat.model or '-'}")
    print(f"Executions ({len(executions)}):")
    for e in executions:
        outcome = "ok" if e.ok else f"REFUSED {e.error_code or ''}".rstrip()
        codes = f" [{', '.join(e.reason_codes)}]" if e.reason_codes else ""
        print(f"  {reads.iso_time(e.timestamp)}  {e.id}  {e.tool}  {outcome}  "
              f"{e.target or '-'}{codes}  {e.duration_ms:.1f} ms")
    print(f"Frames ({len(frames)}):")
    for f in frames:
        tool = f"[{f.tool_name}]" if f.tool_name else ""
        link = f" ({f.execution_id})" if f.execution_id else ""
        mark = " compacted" if f.compacted else ""
        print(f"  #{f.sequence_index}  {reads.iso_time(f.timestamp)}  {f.role}{tool}{link}{mark}: "
              f"{_preview(f.content)}")
    print(f"Compactions ({len(compactions)}):")
    for c in compactions:
        print(f"  {reads.iso_time(c.timestamp)}  compacted={c.compacted_count} "
              f"retained={c.retained_count}  cursor={c.resume_cursor}")
    return 0


def export_records(conn: Any, session: str | None) -> Iterator[dict[str, Any]]:
    """Every record (or one session's) as JSON objects tagged with ``type``."""
    if session is None:
        chat_ids = [row[0] for row in conn.execute(
            "SELECT session_id FROM chat_sessions ORDER BY created_at, session_id")]
    else:
        chat_ids = [session] if reads.chat_session(conn, session) else []
    for chat_id in chat_ids:
        info = reads.chat_session(conn, chat_id)
        if info is not None:
            yield {"type": "chat_session", **info.to_json()}
        for frame in reads.frames(conn, chat_id):
            yield {"type": "frame", **frame.to_json()}
        for compaction in reads.compactions(conn, chat_id):
            yield {"type": "compaction", **compaction.to_json()}
    if session is None:
        rows = conn.execute(f"SELECT {', '.join(reads.EXECUTION_READ_COLUMNS)} FROM executions "
                            "ORDER BY timestamp, id")
        executions = [reads.StoredExecution.from_row(row) for row in rows]
    else:
        executions = reads.executions(conn, session)
    for execution in executions:
        yield {"type": "execution", **execution.to_json()}


def _export(conn: Any, args: argparse.Namespace) -> int:
    if not args.output:
        _write_records(conn, args.session, sys.stdout)
        return 0
    with open(args.output, "w", encoding="utf-8") as handle:
        _write_records(conn, args.session, handle)
    return 0


def _write_records(conn: Any, session: str | None, handle: TextIO) -> None:
    for record in export_records(conn, session):
        handle.write(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n")
