"""On a shared PostgreSQL log as in the SQLite file: no stored field of a call keeps a secret
verbatim (request, response, target, warning texts), with secretguard loaded or not."""

from __future__ import annotations

from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from sari_core.kernel import Kernel  # noqa: E402
from sari_core.testing import MemoryEngine  # noqa: E402
from sari_persistence.plugin import PersistencePlugin  # noqa: E402

# A fake key, assembled so that no scanner takes this file for a leak.
AWS_KEY_ID = "AKIA" + "Q3EXAMPLEZ7KEY4IDXX"[:16]
FILES = {"src/app.py": f"KEY = '{AWS_KEY_ID}'\n"}


def _plugins() -> list[Any]:
    plugins: list[Any] = [PersistencePlugin()]
    secretguard = pytest.importorskip("sari_secretguard")
    return [*plugins, secretguard.SecretguardPlugin()]


def test_no_stored_field_keeps_a_secret_on_postgresql(pg_url: str) -> None:
    with Kernel(MemoryEngine(dict(FILES), root="/srv/app"), plugins=_plugins(),
                load_entry_points=False, analytics_sinks=[],
                settings={"persistence": {"database_url": pg_url,
                                          "install_sigterm_handler": False}}) as kernel:
        assert kernel.execute_search({"query": AWS_KEY_ID})["ok"] is True
        kernel.execute_read({"mode": "file", "target": "src/app.py"})
        kernel.execute_read({"mode": "file", "target": f"missing-{AWS_KEY_ID}.py"})
    with psycopg.connect(pg_url) as conn:
        stored = conn.execute("SELECT tool, arguments, target, response FROM executions"
                              ).fetchall()
    assert len(stored) == 3
    assert [row for row in stored if AWS_KEY_ID in repr(row)] == []
    assert any("[REDACTED" in repr(row) for row in stored)
