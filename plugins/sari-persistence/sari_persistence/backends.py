"""Where the execution log lives: an embedded SQLite file, or a shared PostgreSQL database.

A backend opens the writer's connection, lends read connections, and says which
errors mean "the database is away for now" (the writer keeps its records and
retries) rather than "this batch is bad" (the batch is counted as failed).
SQLite is the default and needs nothing; PostgreSQL is reached through psycopg 3
and a connection pool, and only its :func:`~sari_persistence.dsn.display` form of
the URL is ever shown.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sari_persistence import dsn, schema
from sari_persistence.schema import ExecutionLogUnavailable

log = logging.getLogger(__name__)

# How often a read waiting for a pooled connection looks whether the pool's attempts fail.
_BORROW_STEP = 0.05


class SqliteBackend:
    """The execution log file at ``path``; one read connection, WAL lets it read while writing."""

    name = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._read_conn = schema.open_database(self.path)
        self._read_lock = threading.Lock()

    @property
    def location(self) -> str:
        return str(self.path)

    def connect_writer(self) -> sqlite3.Connection:
        conn = schema.connect(self.path)
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def release_writer(self, conn: Any) -> None:
        conn.close()

    def transient(self, exc: BaseException) -> bool:
        return False  # a local file does not come back by waiting (a lock is retried apart)

    def describe_error(self, exc: BaseException) -> str:
        return str(exc)

    @contextmanager
    def reading(self) -> Iterator[Any]:
        with self._read_lock:
            yield self._read_conn

    def close(self) -> None:
        with self._read_lock:
            self._read_conn.close()


class PostgresBackend:
    """A PostgreSQL database shared by many servers, through a psycopg connection pool.

    Unreachable at start is not an error: the schema is migrated when the database
    first answers, and the writer keeps records until then.

    :raises ExecutionLogUnavailable: psycopg is not installed, or the database holds a
        newer or a foreign schema.
    """

    name = "postgresql"

    def __init__(self, url: str, *, pool_size: int = 4, connect_timeout: float = 5.0) -> None:
        ConnectionPool = _pool_class()  # noqa: N806 - a class
        self._url = url
        self.location = dsn.display(url)
        _check_conninfo(url, self.describe_error)
        self.connect_timeout = connect_timeout
        self._ready = threading.Lock()
        self.migrated = False
        self.pool = ConnectionPool(
            # Two kept open: the writer holds one, a reader finds the other ready.
            url, min_size=2, max_size=max(2, pool_size), open=False, name="sari-persistence",
            kwargs={"autocommit": True, "connect_timeout": max(1, int(connect_timeout))},
            check=ConnectionPool.check_connection, reconnect_timeout=24 * 3600)
        self.pool.open(wait=False)
        try:
            self.ensure_schema()
        except ExecutionLogUnavailable:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - only "away for now" is let through
            if not self.transient(exc):
                self.close()
                raise ExecutionLogUnavailable(
                    f"execution log {self.location}: {self.describe_error(exc)}") from None
            log.error("execution log %s is unreachable (%s); tool calls are served and records "
                      "are kept until it answers", self.location, self.describe_error(exc))

    def describe_error(self, exc: BaseException) -> str:
        return dsn.scrub(f"{type(exc).__name__}: {exc}", self._url)

    def transient(self, exc: BaseException) -> bool:
        import psycopg
        from psycopg_pool import PoolTimeout

        return isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout))

    def ensure_schema(self) -> None:
        """Migrate once, when the database first answers (idempotent, cheap afterwards)."""
        if self.migrated:
            return
        from sari_persistence import pg_schema

        with self._ready:
            if self.migrated:
                return
            raw = self._borrow()
            try:
                pg_schema.migrate(raw)
            finally:
                self.pool.putconn(raw)
            self.migrated = True

    def _failed_connects(self) -> int:
        stats = self.pool.get_stats()
        return stats.get("connections_errors", 0) + stats.get("connections_lost", 0)

    def _borrow(self) -> Any:
        """A pooled connection; at once a PoolTimeout when the pool's own attempts fail.

        Waiting ``connect_timeout`` for a pool that cannot connect would make every read
        during an outage take that long: a refused or lost connection while we wait
        means the database is away now.
        """
        from psycopg_pool import PoolTimeout

        failed = self._failed_connects()
        deadline = time.monotonic() + self.connect_timeout
        while True:
            left = deadline - time.monotonic()
            try:
                return self.pool.getconn(timeout=max(min(_BORROW_STEP, left), 0.001))
            except PoolTimeout:
                if self._failed_connects() > failed or time.monotonic() >= deadline:
                    raise

    def connect_writer(self) -> Any:
        from sari_persistence.dialect import PgConnection

        self.ensure_schema()
        return PgConnection(self.pool.getconn(timeout=self.connect_timeout))

    def release_writer(self, conn: Any) -> None:
        # A broken connection is discarded by the pool, which opens a new one when asked.
        self.pool.putconn(conn.raw)

    @contextmanager
    def reading(self) -> Iterator[Any]:
        from sari_persistence.dialect import PgConnection

        try:
            self.ensure_schema()
            raw = self._borrow()
            try:
                yield PgConnection(raw)
            finally:
                self.pool.putconn(raw)
        except ExecutionLogUnavailable:
            raise
        except Exception as exc:
            if not self.transient(exc):
                raise
            raise ExecutionLogUnavailable(
                f"execution log {self.location} is unreachable: {self.describe_error(exc)}"
            ) from None

    def close(self) -> None:
        # Connection attempts still running against an away database are not waited for long.
        self.pool.close(timeout=1.0)


_INSTALL = "install it with: pip install 'sari-persistence[postgres]'"


def _pool_class() -> Any:
    """psycopg's ``ConnectionPool``; the driver or the pool package that is missing is named."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise ExecutionLogUnavailable(
            f"database_url names PostgreSQL but psycopg is not installed; {_INSTALL}") from exc
    try:
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise ExecutionLogUnavailable(
            "database_url names PostgreSQL but psycopg_pool (the psycopg-pool package) is not "
            f"installed; {_INSTALL}") from exc
    return ConnectionPool


def _check_conninfo(url: str, describe: Callable[[BaseException], str]) -> None:
    """Refuse a connection string libpq cannot parse, or whose port is not a number, at once
    (it would otherwise be taken for a database that is away), naming what is wrong."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    hint = ("; write postgresql://user:password@host:5432/dbname or libpq key=value pairs "
            "(host=... port=5432 dbname=...)")
    try:
        params = conninfo_to_dict(url)
    except ProgrammingError as exc:
        raise ExecutionLogUnavailable(f"database_url {dsn.display(url)} is not a valid "
                                      f"PostgreSQL connection string: {describe(exc).strip()}{hint}"
                                      ) from None
    port = str(params.get("port", "5432"))
    if not all(part.strip().isdigit() or not part.strip() for part in port.split(",")):
        raise ExecutionLogUnavailable(f"database_url {dsn.display(url)} is not a valid "
                                      f"PostgreSQL connection string: port {port!r} is not a "
                                      f"number{hint}")

