"""Telemetry is built off the call's thread, never blocks a call and never breaks one."""

from __future__ import annotations

import threading

import pytest
from otel_telemetry import Telemetry

from sari_core.kernel import Kernel
from sari_otel.background import RecordingThread


def test_a_full_queue_drops_telemetry_instead_of_blocking_the_call() -> None:
    release = threading.Event()
    emitted: list[int] = []

    def slow_emit(number: int) -> None:
        release.wait(10)
        emitted.append(number)

    thread = RecordingThread(maxsize=2)
    for number in range(10):  # returns at once although nothing can be emitted yet
        thread.submit(slow_emit, number)
    assert thread.dropped >= 7
    release.set()
    thread.close()
    assert emitted == sorted(emitted) and len(emitted) == 10 - thread.dropped


def test_a_failing_recorder_changes_no_response(kernel: Kernel, telemetry: Telemetry,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    original = telemetry.plugin.recorder._span

    def broken(*args: object) -> None:
        raise RuntimeError("exporter bug")

    monkeypatch.setattr(telemetry.plugin.recorder, "_span", broken)
    response = kernel.execute_search({"query": "respond"})
    assert response["ok"] is True
    assert telemetry.finished() == []
    monkeypatch.setattr(telemetry.plugin.recorder, "_span", original)
    kernel.execute_search({"query": "respond"})
    assert [span.name for span in telemetry.finished("tools/call search")] == [
        "tools/call search"]
