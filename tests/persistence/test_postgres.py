"""The execution log on a real PostgreSQL server: schema, many servers, scoping, the CLI.

These run against a server started from the machine's PostgreSQL binaries (see
tests/support/postgres_server.py); where there are none they skip, or fail where the
environment requires them (SARI_TEST_POSTGRES=required).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from sari_core.kernel import Kernel  # noqa: E402
from sari_core.testing import MemoryEngine  # noqa: E402
from sari_persistence import ExecutionLogUnavailable  # noqa: E402
from sari_persistence.pg_schema import VERSION_TABLE, migrate  # noqa: E402
from sari_persistence.plugin import PersistencePlugin  # noqa: E402
from sari_persistence.schema import SCHEMA_VERSION  # noqa: E402
from sari_persistence.settings import PersistenceSettings  # noqa: E402
from sari_persistence.store import open_store  # noqa: E402

HERE = Path(__file__).parent
FILES = {"src/parser.py": "def parse(text):\n    return text.split()\n"}


def kernel_on(url: str, machine: str, root: str = "/srv/app", **settings: Any) -> Kernel:
    return Kernel(MemoryEngine(dict(FILES), root=root), plugins=[PersistencePlugin()],
                  load_entry_points=False, analytics_sinks=[],
                  settings={"persistence": {"database_url": url, "machine": machine,
                                            "install_sigterm_handler": False, **settings}})


def rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()


def test_an_empty_database_is_migrated_to_the_current_version(pg_url: str) -> None:
    store = open_store(PersistenceSettings(database_url=pg_url))
    store.close()
    assert rows(pg_url, f"SELECT version FROM {VERSION_TABLE} ORDER BY version") == [
        (v,) for v in range(1, SCHEMA_VERSION + 1)]
    tables = {r[0] for r in rows(pg_url, "SELECT table_name FROM information_schema.tables "
                                         "WHERE table_schema = 'public'")}
    assert {"chat_sessions", "chat_frames", "chat_compactions", "executions",
            "chat_frame_sources", "session_metrics"} <= tables
    columns = [r[0] for r in rows(pg_url, "SELECT column_name FROM information_schema.columns "
                                          "WHERE table_name = 'executions' "
                                          "ORDER BY ordinal_position")]
    assert columns[-1] == "machine" and "workspace_hash" in columns


def test_a_previous_version_is_migrated_and_keeps_its_rows(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert migrate(conn, target=SCHEMA_VERSION - 1) == SCHEMA_VERSION - 1
        conn.execute("INSERT INTO executions (id, session_key, session_id, workspace_hash, tool,"
                     " arguments, ok, target, error_code, reason_codes, duration_ms, timestamp,"
                     " response) VALUES ('ex-old-1', 'ws:0123456789ab:sid:old', 'old', "
                     "'0123456789ab', 'read', '{}', 1, 'a.py', NULL, '[]', 1.5, 1002, '{}')")
    kernel = kernel_on(pg_url, "laptop-b")
    try:
        kernel.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "old"})
        response = kernel.execute_tool("context_query", {"session_id": "old"})
    finally:
        kernel.close()
    assert [(e["id"], e["machine"]) for e in response["executions"]][-1] == ("ex-old-1", None)
    assert {e["machine"] for e in response["executions"][:-1]} == {"laptop-b"}
    assert rows(pg_url, f"SELECT max(version) FROM {VERSION_TABLE}") == [(SCHEMA_VERSION,)]


def test_a_newer_or_foreign_schema_is_refused_and_left_untouched(pg_url: str,
                                                                   postgres_server: Any) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        migrate(conn)
        conn.execute(f"INSERT INTO {VERSION_TABLE} VALUES (99)")
    with pytest.raises(ExecutionLogUnavailable, match="newer"):
        open_store(PersistenceSettings(database_url=pg_url))
    assert rows(pg_url, f"SELECT max(version) FROM {VERSION_TABLE}") == [(99,)]
    foreign = postgres_server.create_database()
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE executions (id int)")
    with pytest.raises(ExecutionLogUnavailable, match="left untouched"):
        open_store(PersistenceSettings(database_url=foreign))
    assert rows(foreign, "SELECT count(*) FROM information_schema.tables "
                         "WHERE table_schema = 'public'") == [(1,)]


def test_two_servers_starting_and_writing_at_once_lose_and_duplicate_nothing(
        pg_url: str, tmp_path: Path) -> None:
    calls = 150
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE.parent / "kernel"), str(HERE.parent / "support"),
         os.environ.get("PYTHONPATH", "")])}
    children = [subprocess.Popen([sys.executable, str(HERE / "pg_writer_child.py"), pg_url,
                                  machine, str(calls), str(go)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for machine in ("host-a", "host-b")]
    go.touch()  # both open the empty database together: the migration lock decides
    outputs = [child.communicate(timeout=180) for child in children]
    assert [child.returncode for child in children] == [0, 0], outputs
    assert [int(out.strip()) for out, _ in outputs] == [calls, calls]
    assert rows(pg_url, f"SELECT version, count(*) FROM {VERSION_TABLE} GROUP BY version "
                        "ORDER BY version") == [(v, 1) for v in range(1, SCHEMA_VERSION + 1)]
    assert rows(pg_url, "SELECT machine, count(*), count(DISTINCT id) FROM executions "
                        "WHERE session_id = 'team-run' GROUP BY machine ORDER BY machine") == [
        ("host-a", calls, calls), ("host-b", calls, calls)]
    sequences = [r[0] for r in rows(pg_url, "SELECT sequence_index FROM chat_frames "
                                            "WHERE session_id = 'team-chat' "
                                            "ORDER BY sequence_index")]
    assert sequences == list(range(2 * calls))  # one order, no index given twice


def test_a_session_resumed_on_another_machine_finds_what_the_first_one_read(
        pg_url: str) -> None:
    first = kernel_on(pg_url, "laptop", root="/home/ana/app")
    first.execute_search({"query": "parse", "session_id": "task-7"})
    first.close()
    second = kernel_on(pg_url, "ci-runner", root="/builds/app")  # another checkout path
    try:
        response = second.execute_tool("context_query", {"session_id": "task-7"})
    finally:
        second.close()
    assert [(e["tool"], e["machine"], e["session_id"]) for e in response["executions"]] == [
        ("search", "laptop", "task-7")]


def test_context_query_stays_in_the_callers_session_unless_the_operator_widens_it(
        pg_url: str) -> None:
    other = kernel_on(pg_url, "host-b", root="/srv/other")
    other.execute_search({"query": "parse", "session_id": "someone-else"})
    other.close()
    narrow = kernel_on(pg_url, "host-a")
    try:
        narrow.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "mine"})
        for scope in ("workspace", "team"):
            asked = narrow.execute_tool("context_query", {"session_id": "mine", "scope": scope})
            assert asked["scope"]["name"] == "session"
            assert {e["session_id"] for e in asked["executions"]} == {"mine"}
        by_id = narrow.execute_tool("context_query", {"session_id": "mine",
                                                      "chat_session_id": "someone-else"})
        assert {e["session_id"] for e in by_id["executions"]} == {"mine"}
    finally:
        narrow.close()
    team = kernel_on(pg_url, "host-a", context_query_scope="team")
    try:
        everything = team.execute_tool("context_query", {"session_id": "mine", "scope": "team"})
        workspace = team.execute_tool("context_query", {"session_id": "mine",
                                                        "scope": "workspace"})
    finally:
        team.close()
    assert everything["scope"]["name"] == "team"
    assert {e["session_id"] for e in everything["executions"]} == {"mine", "someone-else"}
    assert {e["session_id"] for e in workspace["executions"]} == {"mine"}  # not /srv/other


def test_sari_log_reads_the_postgresql_log_and_never_prints_its_password(
        pg_url: str, tmp_path: Path) -> None:
    kernel = kernel_on(pg_url, "host-a")
    kernel.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "cli-run"})
    kernel.close()
    env = {**os.environ, "SARI_PERSISTENCE__DATABASE_URL": pg_url}
    password = pg_url.split(":")[2].split("@")[0]

    def sari(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "sari_core.cli.main", *args], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)

    listed = sari("log", "sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert password not in listed.stdout and "***" in data["db"]
    assert [s["executions"] for s in data["execution_sessions"]] == [1]
    shown = sari("log", "show", "cli-run", "--json")
    assert json.loads(shown.stdout)["executions"][0]["machine"] == "host-a"
    exported = sari("log", "export")
    assert [json.loads(line)["type"] for line in exported.stdout.splitlines()] == ["execution"]
    for result in (listed, shown, exported):
        assert password not in result.stdout + result.stderr


def test_metrics_compactions_and_text_search_are_kept_as_on_sqlite(pg_url: str) -> None:
    from sari_persistence import ExecutionLog

    kernel = kernel_on(pg_url, "host-a", session_metrics_backend="sqlite")
    try:
        for _ in range(3):
            kernel.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "m"})
        chat = ExecutionLog.of(kernel).chat_session("chat-1", project_root="/srv/app")
        for number in range(8):
            chat.user(f"message {number} about src/parser.py")
        outcome = chat.compact(keep_last=2, kernel=kernel)
        found = chat.query(text="MESSAGE 3")  # case-insensitive, as FTS5 trigram is
    finally:
        kernel.close()
    assert (outcome.compacted_count, outcome.retained_count) == (6, 2)
    assert outcome.compaction is not None and "Files mentioned: [src/parser.py]" in outcome.summary
    assert [frame.content for frame in found.frames] == ["message 3 about src/parser.py"]
    assert rows(pg_url, "SELECT calls_count FROM session_metrics") == [(3,)]
    assert rows(pg_url, "SELECT count(*), sum(compacted) FROM chat_frames") == [(9, 6)]


def test_claude_code_hooks_store_and_reinject_through_postgresql(pg_url: str) -> None:
    from test_claude_code import pre_compact_input, session_start_input

    from sari_persistence import claude_code

    settings = PersistenceSettings(database_url=pg_url, install_sigterm_handler=False)
    stored = claude_code.pre_compact(pre_compact_input("manual"), settings, None)
    assert stored is not None
    assert claude_code.pre_compact(pre_compact_input("manual"), settings, None) is None
    assert rows(pg_url, "SELECT count(*) FROM chat_compactions") == [(1,)]
    summary = claude_code.session_start(session_start_input("compact"), settings, None)
    assert summary == stored.summary
