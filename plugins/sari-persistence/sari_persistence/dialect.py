"""One SQL text for both databases: SQLite's ``?`` placeholders, run on PostgreSQL too.

The queries of this package are written in the SQL both engines accept
(``INSERT ... ON CONFLICT DO NOTHING``, ``RETURNING id``, ``CASE`` instead of
boolean sums). :class:`PgConnection` gives a psycopg connection the small part of
``sqlite3.Connection`` those queries use — ``execute(sql, params)`` returning a
cursor — turning ``?`` into psycopg's ``%s`` on the way. What still differs
(substring search, the write lock) is asked of :func:`is_postgres`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=512)
def to_pyformat(sql: str) -> str:
    """``?`` -> ``%s`` and ``%`` -> ``%%`` outside quoted literals."""
    out: list[str] = []
    quote: str | None = None
    for char in sql:
        if quote is not None:
            if char == quote:
                quote = None
            out.append("%%" if char == "%" else char)
        elif char in ("'", '"'):
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        else:
            out.append(char)
    return "".join(out)


# SQLite's write-lock transaction; PostgreSQL locks rows as they are written.
_STATEMENTS = {"BEGIN IMMEDIATE": "BEGIN"}


class PgConnection:
    """A psycopg connection (autocommit) answering ``execute`` like ``sqlite3`` does."""

    dialect = "postgresql"

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        statement = _STATEMENTS.get(sql)
        if statement is not None:
            return self.raw.execute(statement)
        return self.raw.execute(to_pyformat(sql), list(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(to_pyformat(sql), rows)

    def close(self) -> None:
        self.raw.close()


def is_postgres(conn: Any) -> bool:
    return isinstance(conn, PgConnection)


def like(conn: Any) -> str:
    """Case-insensitive substring match: SQLite's LIKE already is (ASCII), PostgreSQL's is not."""
    return "ILIKE" if is_postgres(conn) else "LIKE"
