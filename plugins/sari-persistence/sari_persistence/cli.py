"""``sari log``: list sessions, show one session's executions and frames, export JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any, TextIO

from sari_core import SariError, SettingsError, SettingsSpec, SettingsStore
from sari_persistence import reads, schema
from sari_persistence.backends import PostgresBackend
from sari_persistence.execution_filter import ExecutionFilter, Outcome, outcome_label
from sari_persistence.records import now_ms
from sari_persistence.settings import SECTION, PersistenceSettings

PREVIEW_CHARS = 120


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="execution log file (default: the persistence settings' "
                        "database_url or db_path, else execution_log.db in the state folder)")
    sub = parser.add_subparsers(dest="log_command", metavar="ACTION", required=True)
    sessions = sub.add_parser("sessions", help="list chat sessions and tool-call sessions")
    sessions.add_argument("--limit", type=int, default=50)
    sessions.add_argument("--json", action="store_true", help="print JSON")
    _filters(sessions)
    show = sub.add_parser("show", help="a session's executions, frames and compactions")
    show.add_argument("session", help="chat session id, client session id or kernel session key")
    show.add_argument("--limit", type=int, default=None, help="at most this many of each")
    show.add_argument("--json", action="store_true", help="print JSON")
    _filters(show)
    export = sub.add_parser("export", help="export as JSON lines (one record per line)")
    export.add_argument("--session", help="only this session (default: everything)")
    export.add_argument("-o", "--output", help="file to write (default: stdout)")
    _filters(export)


def _filters(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("filters (executions; frames by time and tool)")
    group.add_argument("--machine", help="calls recorded on this machine (the `machine` "
                       "setting, else its host name)")
    group.add_argument("--since", metavar="WHEN", help="not before: ISO 8601, Unix seconds, "
                       "or a time ago (90m, 12h, 7d, 2w)")
    group.add_argument("--until", metavar="WHEN", help="not after (same forms as --since)")
    group.add_argument("--tool", help="calls of this tool (mcp__<server>__edit matches edit)")
    outcome = group.add_mutually_exclusive_group()
    outcome.add_argument("--refused", action="store_true", help="only calls a rule refused "
                         "(a policy, the workspace guard)")
    outcome.add_argument("--failed", action="store_true", help="only calls that failed for "
                         "another reason (a missing file, bad arguments)")


_AGO_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def _when(value: str | None, flag: str) -> int | None:
    """``--since``/``--until`` -> Unix milliseconds."""
    if value is None:
        return None
    text = value.strip().lower()
    if len(text) > 1 and text[-1] in _AGO_UNITS and text[:-1].isdigit():
        return now_ms() - int(text[:-1]) * _AGO_UNITS[text[-1]] * 1000
    from sari_persistence.tool import parse_time

    try:
        return parse_time(value, flag)
    except SariError as exc:
        raise _BadFilter(f"{flag} {value!r} is not a time; give ISO 8601 "
                         "(2026-01-10T09:30:00Z), Unix seconds, or a time ago (12h, 7d)"
                         ) from exc


class _BadFilter(ValueError):
    """A filter the user gave cannot be read."""


def _kept(args: argparse.Namespace) -> ExecutionFilter:
    outcome: Outcome | None = "refused" if args.refused else "failed" if args.failed else None
    kept = ExecutionFilter(machine=args.machine, since_ms=_when(args.since, "--since"),
                           until_ms=_when(args.until, "--until"), tool=args.tool,
                           outcome=outcome)
    if kept.since_ms is not None and kept.until_ms is not None \
            and kept.since_ms > kept.until_ms:
        raise _BadFilter("--since is after --until: nothing can match; swap them")
    return kept


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
        kept = _kept(args)
    except _BadFilter as exc:
        print(f"sari log: {exc}", file=sys.stderr)
        return 2
    try:
        opened, location = _open(args)
        if opened is None:
            print(f"sari log: no execution log yet at {location} (install sari-persistence and "
                  "run sari serve, or a Claude Code PreCompact hook, to create it).",
                  file=sys.stderr)
            return 0 if args.log_command != "show" else 1
        with opened as conn:
            if args.log_command == "sessions":
                return _sessions(conn, args, location, kept)
            if args.log_command == "show":
                return _show(conn, args, kept)
            return _export(conn, args, kept)
    except (schema.ExecutionLogUnavailable, SettingsError) as exc:
        print(f"sari log: {exc}", file=sys.stderr)
        return 1


def _sessions(conn: Any, args: argparse.Namespace, path: str, kept: ExecutionFilter) -> int:
    chats = reads.chat_sessions(conn, args.limit, kept)
    calls = reads.execution_sessions(conn, args.limit, kept)
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
        machines = ",".join(call["machines"]) or "-"
        print(f"  {call['session_key']}  machine={machines}  executions={call['executions']} "
              f"refused={call['refused']} failed={call['failed']}  last={call['last']}  "
              f"({call['source']})")
    return 0


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _show(conn: Any, args: argparse.Namespace, kept: ExecutionFilter) -> int:
    session = args.session
    chat = reads.chat_session(conn, session)
    executions = reads.executions(conn, session, args.limit, kept)
    # Frames carry no machine and no outcome: a filter on those selects executions only.
    frames_kept = not kept.narrows_executions_only
    frames = reads.frames(conn, session, limit=args.limit, kept=kept) if frames_kept else []
    compactions = reads.compactions(conn, session) if frames_kept else []
    if chat is None and not reads.executions(conn, session, 1):
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
        codes = f" [{', '.join(e.reason_codes)}]" if e.reason_codes else ""
        print(f"  {reads.iso_time(e.timestamp)}  {e.machine or '-'}  {e.id}  {e.tool}  "
              f"{outcome_label(e.ok, e.error_code)}  {e.target or '-'}{codes}  "
              f"{e.duration_ms:.1f} ms")
    if not frames_kept:
        print("Frames and compactions: left out (--machine, --refused and --failed select "
              "executions).")
        return 0
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


def export_records(conn: Any, session: str | None,
                   kept: ExecutionFilter | None = None) -> Iterator[dict[str, Any]]:
    """Every record (or one session's, or those ``kept`` keeps) as JSON objects tagged with
    ``type``. A filter on a machine or an outcome exports executions only."""
    kept = kept or ExecutionFilter()
    if kept.narrows_executions_only:
        chat_ids: list[str] = []
    elif session is None:
        chat_ids = [row[0] for row in conn.execute(
            "SELECT session_id FROM chat_sessions ORDER BY created_at, session_id")]
    else:
        chat_ids = [session] if reads.chat_session(conn, session) else []
    for chat_id in chat_ids:
        frames = reads.frames(conn, chat_id, kept=kept)
        if not frames and kept != ExecutionFilter():
            continue  # nothing of this session in the window
        info = reads.chat_session(conn, chat_id)
        if info is not None:
            yield {"type": "chat_session", **info.to_json()}
        for frame in frames:
            yield {"type": "frame", **frame.to_json()}
        for compaction in reads.compactions(conn, chat_id):
            if kept.since_ms is not None and compaction.timestamp < kept.since_ms:
                continue
            if kept.until_ms is not None and compaction.timestamp > kept.until_ms:
                continue
            yield {"type": "compaction", **compaction.to_json()}
    for execution in reads.executions(conn, session, kept=kept):
        yield {"type": "execution", **execution.to_json()}


def _export(conn: Any, args: argparse.Namespace, kept: ExecutionFilter) -> int:
    if not args.output:
        _write_records(conn, args.session, kept, sys.stdout)
        return 0
    with open(args.output, "w", encoding="utf-8") as handle:
        _write_records(conn, args.session, kept, handle)
    return 0


def _write_records(conn: Any, session: str | None, kept: ExecutionFilter,
                   handle: TextIO) -> None:
    for record in export_records(conn, session, kept):
        handle.write(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n")
