"""A ``database_url`` that cannot be used is reported as such: a malformed one as malformed
(never a traceback, never its password, never taken for a database that is away), and a
missing driver or pool package by its own name."""

from __future__ import annotations

import sys

import pytest

from sari_core.cli.main import main
from sari_persistence.backends import PostgresBackend
from sari_persistence.schema import ExecutionLogUnavailable

PASSWORD = "s3cret-pw"


@pytest.mark.parametrize(("url", "said"), [
    (f"postgresql://sari:{PASSWORD}@[db.internal/log", "IPv6"),
    (f"postgresql://sari:{PASSWORD}@db.internal:fivefour/log", "port 'fivefour' is not a number"),
    (f"host=db.internal port=abc password={PASSWORD}", "port 'abc' is not a number"),
    (f"host='db.internal password={PASSWORD}", "unterminated quoted string"),
])
def test_sari_log_names_a_malformed_database_url(
        url: str, said: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("psycopg")  # libpq's own parser reads the URL (the postgres extra)
    monkeypatch.setenv("SARI_PLUGINS", "persistence")
    monkeypatch.setenv("SARI_PERSISTENCE__DATABASE_URL", url)
    assert main(["log", "sessions"]) == 1
    err = capsys.readouterr().err
    assert "is not a valid PostgreSQL connection string" in err and said in err
    assert "postgresql://user:password@host:5432/dbname" in err  # how to write one
    assert "Traceback" not in err and PASSWORD not in err


def test_a_missing_pool_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("psycopg")
    monkeypatch.setitem(sys.modules, "psycopg_pool", None)  # as if it were not installed
    with pytest.raises(ExecutionLogUnavailable) as caught:
        PostgresBackend("postgresql://sari@db.internal:5432/log")
    assert "psycopg_pool (the psycopg-pool package) is not installed" in str(caught.value)
    assert "psycopg is not installed" not in str(caught.value)
