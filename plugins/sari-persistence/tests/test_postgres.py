"""The execution log on a real PostgreSQL server: schema, many servers, scoping, the CLI.

These run against a server started from the machine's PostgreSQL binaries (see
tests/support/postgres_server.py); where there are none they skip, or fail where the
environment requires them (SARI_TEST_POSTGRES=required).
"""

from __future__ import annotations

import json
import os
import shlex
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


# --- the team page's steps, as written ---------------------------------------------------

REPO = HERE.parents[2]  # plugins/sari-persistence/tests -> the repository
TEAM_PAGE = REPO / "docs" / "team.md"


def shell_blocks(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [block.split("\n", 1)[1] for block in text.split("```")[1::2]
            if block.startswith("sh\n")]


def page_sql(opening: str) -> str:
    """The SQL the page feeds to the psql command starting with ``opening``."""
    for block in shell_blocks(TEAM_PAGE):
        for line in block.splitlines():
            if line.startswith(opening) and line.endswith("<<'SQL'"):
                return block.split(line + "\n", 1)[1].split("\nSQL\n", 1)[0]
    raise AssertionError(f"docs/team.md has no `{opening} ... <<'SQL'` step")


def psql(server: Any, url: str, sql: str) -> None:
    done = subprocess.run([str(server.bin / "psql"), url, "-v", "ON_ERROR_STOP=1"], input=sql,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def sari_cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sari_core.cli.main", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=180)


def test_the_team_pages_install_command_installs_from_this_repository() -> None:
    (install,) = [line for block in shell_blocks(TEAM_PAGE) for line in block.splitlines()
                  if line.startswith("pip install")]
    argv = shlex.split(install.split("#")[0])  # as a shell reads it
    requirements = [arg for arg in argv[2:] if arg != "-e"]
    for requirement in requirements:
        folder, _, extra = requirement.partition("[")
        project = (REPO / folder / "pyproject.toml").read_text(encoding="utf-8")
        assert not extra or f"\n{extra.rstrip(']')} = [" in project, (requirement, "extra")
    # As written, from the checkout's root; nothing downloaded (their dependencies are
    # the packages' own business: each names what it needs).
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-index",
                           "--no-build-isolation", "--no-deps", *argv[2:]], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # The plugin's own page names the same install, from the checkout.
    plugin_page = (REPO / "docs" / "plugins" / "persistence.md").read_text(encoding="utf-8")
    assert "pip install -e 'plugins/sari-persistence[postgres]'" in plugin_page
    assert "pip install 'sari-persistence" not in plugin_page + TEAM_PAGE.read_text("utf-8")


@pytest.mark.parametrize("service", ["debian", "managed"])
def test_the_team_pages_database_steps_give_sari_what_it_needs_without_superuser(
        service: str, tmp_path: Path) -> None:
    """The page's role and database, made as it says (Debian's postgres superuser, or a
    managed service's administrator who is not one): a server creates its tables and
    pg_trgm there, and `sari doctor` says the version, the schema and the spool."""
    from postgres_server import PostgresServer

    server = PostgresServer()
    try:
        if service == "debian":
            psql(server, server.url(), page_sql("sudo -u postgres psql"))
        else:
            psql(server, server.url(), "CREATE ROLE cloud_admin LOGIN PASSWORD 'adm' "
                 "CREATEROLE CREATEDB NOSUPERUSER;")
            admin = f"postgresql://cloud_admin:adm@127.0.0.1:{server.port}/postgres"
            psql(server, admin, page_sql('psql "postgresql://ADMIN@'))
        (export,) = [line for block in shell_blocks(TEAM_PAGE) for line in block.splitlines()
                     if line.startswith("export SARI_PERSISTENCE__DATABASE_URL=")]
        url = export.split("=", 1)[1].strip("'").replace("db.internal:5432",
                                                         f"127.0.0.1:{server.port}")
        env = {**os.environ, "SARI_PERSISTENCE__DATABASE_URL": url,
               "SARI_STATE_DIR": str(tmp_path / "state"), "SARI_PLUGINS": "persistence"}
        workspace = tmp_path / "ws"
        workspace.mkdir()

        def doctor() -> dict[str, Any]:
            done = sari_cli(env, workspace, "doctor", "--json")
            checks = {c["name"]: c for c in json.loads(done.stdout)}
            assert "s3cret" not in done.stdout + done.stderr
            return checks

        before = doctor()["execution log"]
        assert before["status"] == "ok" and "PostgreSQL 15" in before["detail"]
        assert "connected as sari in" in before["detail"] and "superuser" not in before["detail"]
        assert "no tables yet" in before["detail"]

        kernel = kernel_on(url, "build-07")
        try:
            kernel.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "s"})
        finally:
            kernel.close()
        assert rows(url, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user") == [
            (False,)]
        assert rows(url, "SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'") == [
            ("pg_trgm",)]
        assert rows(url, "SELECT count(*) FROM executions") == [(1,)]

        from sari_persistence import dsn, spool

        folder = spool.folder_for(dsn.display(url)).relative_to(spool.state_dir())
        waiting = tmp_path / "state" / folder
        waiting.mkdir(parents=True)
        (waiting / "1-1.jsonl").write_text('{"kind": "x"}\n{"kind": "y"}\n', encoding="utf-8")
        after = doctor()
        assert after["execution log"]["status"] == "ok"
        assert f"schema {SCHEMA_VERSION} (current), frame text indexed (pg_trgm)" in \
            after["execution log"]["detail"]
        assert after["execution log spool"]["status"] == "warn"
        assert after["execution log spool"]["detail"].startswith("2 records kept on disk wait")
    finally:
        server.close()


def test_doctor_says_when_the_database_does_not_answer(tmp_path: Path) -> None:
    from postgres_server import PASSWORD, free_port

    url = f"postgresql://sari:{PASSWORD}@127.0.0.1:{free_port()}/sari"  # nobody listens
    env = {**os.environ, "SARI_PERSISTENCE__DATABASE_URL": url,
           "SARI_STATE_DIR": str(tmp_path / "state"), "SARI_PLUGINS": "persistence"}
    done = sari_cli(env, tmp_path, "doctor", "--json")
    (check,) = [c for c in json.loads(done.stdout) if c["name"] == "execution log"]
    assert done.returncode == 1 and check["status"] == "error"
    assert check["detail"].startswith(f"postgresql://sari:***@127.0.0.1:{url.split(':')[3]}")
    assert "does not answer" in check["detail"] and PASSWORD not in done.stdout + done.stderr
