"""The analytics queue never blocks and counts what it drops, by event type."""

from __future__ import annotations

import time

from sari_core.kernel.analytics import AnalyticsQueue, JsonLinesSink, MemorySink


def test_stalled_writer_drops_exactly_the_overflow_by_type() -> None:
    sink = MemorySink()
    analytics = AnalyticsQueue([sink], maxsize=2000, autostart=False)  # writer stalled
    started = time.perf_counter()
    accepted = sum(analytics.emit("read" if i % 2 else "search", "k", i=i) for i in range(2500))
    elapsed = time.perf_counter() - started
    assert accepted == 2000
    # events 2000..2499 were dropped: 250 odd (read) and 250 even (search)
    assert dict(analytics.drop_count_by_type) == {"read": 250, "search": 250}
    assert sum(analytics.drop_count_by_type.values()) == 500
    assert elapsed < 5  # generous: the point is that put_nowait never waited on the writer
    analytics.start()
    analytics.close()
    assert len(sink.events) == 2000
    assert [e.data["i"] for e in sink.events] == list(range(2000))  # newest were dropped


def test_broken_sink_does_not_stop_the_writer(tmp_path) -> None:
    class Broken:
        def write_batch(self, events):
            raise OSError("disk full")

        def close(self):
            pass

    good = MemorySink()
    analytics = AnalyticsQueue([Broken(), good])
    for i in range(10):
        analytics.emit("read", "k", i=i)
    analytics.close()
    assert len(good.events) == 10


def test_jsonl_sink_writes_one_object_per_line(tmp_path) -> None:
    path = tmp_path / "a" / "events.jsonl"
    analytics = AnalyticsQueue([JsonLinesSink(path)])
    analytics.emit("search", "ws:x:sid:s", ok=True)
    analytics.close()
    lines = path.read_text().splitlines()
    assert len(lines) == 1 and '"type": "search"' in lines[0]
