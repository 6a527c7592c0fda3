"""PostgreSQL away at start, gone mid-session, restarted under load: calls are answered,
records are written when it is back or counted as lost, and its password never shows."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from postgres_server import PASSWORD, PostgresServer, free_port  # noqa: E402
from test_postgres import kernel_on, rows  # noqa: E402

from sari_persistence.records import ExecutionRecord  # noqa: E402
from sari_persistence.settings import PersistenceSettings  # noqa: E402
from sari_persistence.store import ExecutionStore, open_store  # noqa: E402

READ = {"mode": "file", "target": "src/parser.py"}


@pytest.fixture
def own_server(postgres_server: Any) -> Iterator[PostgresServer]:
    """A server of this test's own, free to be stopped and restarted."""
    server = PostgresServer()
    yield server
    server.close()


def wait_until_written(store: ExecutionStore, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if store.flush(timeout=5) and not store.writer.database_away:
            return
        time.sleep(0.1)
    raise AssertionError("the writer did not catch up after the database came back")


def answered(kernel: Any, arguments: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """context_query once the pool has its read connections back (it reconnects by itself)."""
    deadline = time.monotonic() + timeout
    while True:
        response: dict[str, Any] = kernel.execute_tool("context_query", arguments)
        if response["ok"] or time.monotonic() > deadline:
            return response
        assert response["error"]["code"] == "EXECUTION_LOG_UNAVAILABLE", response
        time.sleep(0.2)


def plugin_store(kernel: Any) -> ExecutionStore:
    return kernel.pm.get_plugin("persistence").store


class FakeCall:
    """The fields of a CallRecord the log keeps."""

    def __init__(self, index: int) -> None:
        self.execution_id = f"ex-load-{index}"
        self.session_key = "ws:0123456789ab:sid:load"
        self.tool = "read"
        self.arguments = {"target": f"src/f{index}.py"}
        self.ok = True
        self.target = f"src/f{index}.py"
        self.error_code = None
        self.reason_codes: list[str] = []
        self.duration_ms = 1.0
        self.timestamp = time.time()
        self.response = {"ok": True, "text": "x" * 200}


def test_unreachable_at_start_calls_are_answered_and_records_written_when_it_answers(
        own_server: PostgresServer) -> None:
    url = own_server.create_database()
    own_server.stop()
    started = time.monotonic()
    kernel = kernel_on(url, "host-a", connect_timeout_seconds=1)
    try:
        assert time.monotonic() - started < 15
        for _ in range(5):
            assert kernel.execute_read({**READ, "session_id": "early"})["ok"] is True
        asked = time.monotonic()
        refused = kernel.execute_tool("context_query", {"session_id": "early"})
        assert time.monotonic() - asked < 10
        assert refused["ok"] is False
        assert refused["error"]["code"] == "EXECUTION_LOG_UNAVAILABLE"
        own_server.start()
        wait_until_written(plugin_store(kernel))
        answer = answered(kernel, {"session_id": "early", "limit": 50})
    finally:
        kernel.close()
    assert [e["tool"] for e in answer["executions"]].count("read") == 5
    assert rows(url, "SELECT count(*) FROM executions WHERE session_id = 'early' "
                     "AND tool = 'read'") == [(5,)]


def test_gone_mid_session_the_kept_records_are_written_when_it_is_back(
        own_server: PostgresServer) -> None:
    url = own_server.create_database()
    kernel = kernel_on(url, "host-a", connect_timeout_seconds=1)
    try:
        kernel.execute_read({**READ, "session_id": "mid"})
        store = plugin_store(kernel)
        assert store.flush()
        own_server.stop()
        for _ in range(20):
            assert kernel.execute_read({**READ, "session_id": "mid"})["ok"] is True
        time.sleep(0.5)  # the writer meets the dead connection
        own_server.start()
        wait_until_written(store)
        assert store.stats.outages >= 1 and store.stats.lost == 0 and store.stats.failed == 0
    finally:
        kernel.close()
    assert rows(url, "SELECT count(*) FROM executions WHERE session_id = 'mid' "
                     "AND tool = 'read'") == [(21,)]


def test_context_query_during_an_outage_answers_without_waiting_for_the_database(
        own_server: PostgresServer) -> None:
    """The page promises an answer at once: never the connect timeout (30 s here), whether
    or not the server has met the outage yet; and a normal answer soon after it is back."""
    url = own_server.create_database()
    kernel = kernel_on(url, "host-a", connect_timeout_seconds=30)
    try:
        kernel.execute_read({**READ, "session_id": "s"})
        assert answered(kernel, {"session_id": "s"})["ok"] is True
        own_server.stop()
        took = []
        for _ in range(3):  # the first meets the outage; the next ones know of it
            started = time.monotonic()
            refused = kernel.execute_tool("context_query", {"session_id": "s"})
            took.append(time.monotonic() - started)
            assert refused["error"]["code"] == "EXECUTION_LOG_UNAVAILABLE", refused
            assert "Retry later" in refused["error"]["hint"]
        assert max(took) < 10, took
        own_server.start()
        started = time.monotonic()
        back = answered(kernel, {"session_id": "s", "tool": "read"})
        assert back["ok"] is True and back["total_executions"] == 1
        assert time.monotonic() - started < 10
    finally:
        kernel.close()


def test_a_restart_under_load_loses_no_acknowledged_record(own_server: PostgresServer) -> None:
    url = own_server.create_database()
    store = open_store(PersistenceSettings(database_url=url, connect_timeout_seconds=1,
                                           queue_size=200_000))
    acknowledged: list[str] = []
    stop = threading.Event()

    def produce() -> None:
        index = 0
        while not stop.is_set():
            call = FakeCall(index)
            if store.submit(ExecutionRecord(call, "load")):
                acknowledged.append(call.execution_id)
            index += 1
            time.sleep(0.0005)

    producer = threading.Thread(target=produce)
    producer.start()
    time.sleep(1.0)
    own_server.restart()
    time.sleep(1.0)
    stop.set()
    producer.join()
    try:
        wait_until_written(store)
        stats = store.stats
    finally:
        store.close()
    assert stats.outages >= 1, "the restart was not noticed: the test proved nothing"
    assert len(acknowledged) > 500
    assert rows(url, "SELECT count(DISTINCT id), count(*) FROM executions") == [
        (len(acknowledged), len(acknowledged))]
    assert stats.dropped_full == 0 and stats.lost == 0 and stats.failed == 0


def test_what_does_not_fit_or_outlives_the_server_is_counted_and_said(
        own_server: PostgresServer, caplog: pytest.LogCaptureFixture) -> None:
    url = own_server.create_database()
    own_server.stop()
    kernel = kernel_on(url, "host-a", connect_timeout_seconds=1, queue_size=10)
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(30):
                assert kernel.execute_read({**READ, "session_id": "full"})["ok"] is True
        store = plugin_store(kernel)
        assert store.stats.dropped_full >= 15
        own_server.start()
        wait_until_written(store)
        answer = answered(kernel, {"session_id": "full"})
    finally:
        kernel.close()
    assert answer["log_health"]["dropped_queue_full"] == store.stats.dropped_full
    assert "dropped and counted" in caplog.text
    written = rows(url, "SELECT count(*) FROM executions WHERE session_id = 'full'")[0][0]
    assert written + store.stats.dropped_full >= 30


def test_the_database_password_never_shows_in_logs_errors_or_doctor(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    url = f"postgresql://sari:{PASSWORD}@127.0.0.1:{free_port()}/sari"  # nobody listens
    with caplog.at_level(logging.DEBUG):
        kernel = kernel_on(url, "host-a", connect_timeout_seconds=1)
        try:
            assert kernel.execute_read({**READ, "session_id": "s"})["ok"] is True
            refused = kernel.execute_tool("context_query", {"session_id": "s"})
        finally:
            kernel.close()
    assert refused["error"]["code"] == "EXECUTION_LOG_UNAVAILABLE"
    assert "127.0.0.1" in refused["error"]["message"]  # it does say where
    assert "database does not answer" in caplog.text or "unreachable" in caplog.text
    assert PASSWORD not in repr(refused) and PASSWORD not in caplog.text
    env = {**os.environ, "SARI_PERSISTENCE__DATABASE_URL": url,
           "SARI_PERSISTENCE__CONNECT_TIMEOUT_SECONDS": "1"}
    for command in (["doctor"], ["log", "sessions"]):
        result = subprocess.run([sys.executable, "-m", "sari_core.cli.main", *command],
                                env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=180)
        assert PASSWORD not in result.stdout + result.stderr, command
    assert PASSWORD not in str(PersistenceSettings(database_url=url).model_dump())


def test_the_database_password_never_reaches_telemetry(tmp_path: Path) -> None:
    pytest.importorskip("sari_otel")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from sari_core.kernel import Kernel
    from sari_core.testing import MemoryEngine
    from sari_otel import OtelPlugin
    from sari_persistence.plugin import PersistencePlugin

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    url = f"postgresql://sari:{PASSWORD}@127.0.0.1:{free_port()}/sari"
    otel = OtelPlugin(tracer_provider=provider)
    kernel = Kernel(MemoryEngine({"src/parser.py": "x = 1\n"}, root="/srv/app"),
                    plugins=[PersistencePlugin(), otel], load_entry_points=False,
                    analytics_sinks=[],
                    settings={"persistence": {"database_url": url, "connect_timeout_seconds": 1,
                                              "install_sigterm_handler": False}})
    try:
        kernel.execute_read({**READ, "session_id": "s"})
        refused = kernel.execute_tool("context_query", {"session_id": "s"})
        otel.flush()
    finally:
        kernel.close()
    spans = exporter.get_finished_spans()
    assert refused["ok"] is False and len(spans) >= 2
    shown = repr([(s.name, dict(s.attributes or {}), [dict(e.attributes or {}) for e in s.events])
                  for s in spans])
    assert "EXECUTION_LOG_UNAVAILABLE" in shown  # the refusal is there, its secret is not
    assert PASSWORD not in shown


def test_records_the_away_database_never_took_are_kept_on_disk_and_written_next_start(
        own_server: PostgresServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from sari_persistence import spool

    monkeypatch.setenv("SARI_STATE_DIR", str(tmp_path / "state"))
    url = own_server.create_database()
    own_server.stop()
    kernel = kernel_on(url, "host-a", connect_timeout_seconds=1)
    for _ in range(7):
        assert kernel.execute_read({**READ, "session_id": "spooled"})["ok"] is True
    store = plugin_store(kernel)
    kernel.close()  # the database never came back: the 7 go to disk, not to "lost"
    assert (store.stats.spilled, store.stats.lost) == (7, 0)
    folder = spool.folder_for(store.location)
    (spooled,) = folder.glob("*.jsonl")
    assert "pg-secret" not in spooled.read_text() and oct(spooled.stat().st_mode)[-3:] == "600"
    own_server.start()
    again = kernel_on(url, "host-b", connect_timeout_seconds=1)
    try:
        wait_until_written(plugin_store(again))
        deadline = time.monotonic() + 30
        while list(folder.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert list(folder.iterdir()) == []  # deleted once committed
    finally:
        again.close()
    assert rows(url, "SELECT machine, count(*) FROM executions WHERE session_id = 'spooled' "
                     "GROUP BY machine") == [("host-a", 7)]
