"""What ``sari doctor`` says about the execution log: where it is, whether it answers, which
server and schema it holds, whether Sari may create what it needs, and what waits to be
written. It reads only: nothing is created or migrated here.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from sari_core import DoctorCheck, SettingsSpec, SettingsStore
from sari_persistence import dsn, schema, spool
from sari_persistence.settings import SECTION, PersistenceSettings

NAME = "execution log"
# Identity columns (the schema) need 10; pg_trgm is a trusted extension (a database owner
# creates it without superuser) from 13.
OLDEST_SERVER = 100000
TRUSTED_TRIGRAM = 130000


def checks(workspace: Path) -> list[DoctorCheck]:
    settings: PersistenceSettings = SettingsStore.load(
        [SettingsSpec(SECTION, PersistenceSettings)], workspace).get(SECTION)
    if settings.database_url is None:
        return [_sqlite(settings.resolved_db_path())]
    return _postgres(settings.database_url.get_secret_value(), settings.connect_timeout_seconds)


def _sqlite(path: Path) -> DoctorCheck:
    if not path.exists():
        return DoctorCheck(NAME, "ok", f"SQLite file {path}: not created yet (the first "
                           "`sari serve` creates it)")
    try:  # read-only: opening it the usual way would migrate it
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            found = int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return DoctorCheck(NAME, "error", f"SQLite file {path} cannot be read: {exc}")
    return DoctorCheck(NAME, *_schema_state(found, f"SQLite file {path}"))


def _schema_state(found: int, head: str) -> tuple[Any, str]:
    current = schema.SCHEMA_VERSION
    if found > current:
        return "error", (f"{head}; schema {found} is newer than this sari-persistence "
                         f"understands ({current}): upgrade it here")
    if found < current:
        return "warn", (f"{head}; schema {found} of {current}: the next `sari serve` "
                        "migrates it, keeping every row")
    return "ok", f"{head}; schema {found} (current)"


def waiting_in_spool(location: str) -> int:
    """Records kept on disk for this database by servers that stopped while it was away."""
    folder = spool.folder_for(location)
    if not folder.is_dir():
        return 0
    total = 0
    for path in folder.iterdir():
        try:
            with path.open(encoding="utf-8") as handle:
                total += sum(1 for line in handle if line.strip())
        except OSError:
            continue
    return total


def _postgres(url: str, timeout: float) -> list[DoctorCheck]:
    location = dsn.display(url)
    waiting = waiting_in_spool(location)
    spooled = DoctorCheck(
        "execution log spool", "warn" if waiting else "ok",
        f"{waiting} records kept on disk wait for {location}: the next `sari serve` on this "
        "machine writes them once the database answers" if waiting
        else f"no records wait on disk for {location}")
    try:
        import psycopg
    except ImportError:
        return [DoctorCheck(NAME, "error", f"database_url names PostgreSQL ({location}) but "
                            "psycopg is not installed: pip install -e "
                            "'plugins/sari-persistence[postgres]' from a checkout"), spooled]
    started = time.monotonic()
    try:
        with psycopg.connect(url, connect_timeout=max(1, int(timeout)), autocommit=True) as conn:
            return [_describe(conn, location, time.monotonic() - started), spooled]
    except psycopg.Error as exc:
        reason = dsn.scrub(f"{type(exc).__name__}: {exc}", url).strip().splitlines()[0]
        return [DoctorCheck(NAME, "error", f"{location} does not answer: {reason}"), spooled]


def _describe(conn: Any, location: str, seconds: float) -> DoctorCheck:
    from sari_persistence import pg_schema

    version_num = int(conn.execute("SHOW server_version_num").fetchone()[0])
    version = str(conn.execute("SHOW server_version").fetchone()[0]).split()[0]
    user, superuser, may_create = conn.execute(
        "SELECT current_user, rolsuper, has_database_privilege(current_database(), 'CREATE') "
        "AND has_schema_privilege(current_schema(), 'CREATE') "
        "FROM pg_roles WHERE rolname = current_user").fetchone()
    trigram = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'").fetchone()
    head = (f"{location}: PostgreSQL {version}, connected as {user}"
            f"{' (superuser)' if superuser else ''} in {seconds * 1000:.0f} ms")
    if version_num < OLDEST_SERVER:
        return DoctorCheck(NAME, "error", f"{head}; the execution log needs PostgreSQL 10 or "
                           "later (13 or later to index frame text without superuser)")
    try:
        found = pg_schema.schema_version(conn)
    except schema.ExecutionLogUnavailable as exc:
        return DoctorCheck(NAME, "error", f"{head}; {exc}")
    current = schema.SCHEMA_VERSION
    index = "frame text indexed (pg_trgm)" if trigram else (
        "frame text not indexed (pg_trgm could not be created: search scans)")
    if found < current and not may_create:
        return DoctorCheck(NAME, "error", f"{head}; schema {found} of {current}, and {user} "
                           "may not create tables here: make it the database's owner "
                           "(ALTER DATABASE ... OWNER TO ...)")
    if found == 0:
        return DoctorCheck(NAME, "ok", f"{head}; no tables yet: the first `sari serve` "
                           f"creates schema {current} ({user} may create them)")
    status, detail = _schema_state(found, head)
    if status != "ok":
        return DoctorCheck(NAME, status, detail)
    slow = "" if trigram or version_num >= TRUSTED_TRIGRAM else " (PostgreSQL before 13: " \
        "creating pg_trgm needs a superuser)"
    return DoctorCheck(NAME, "ok", f"{detail}, {index}{slow}")
