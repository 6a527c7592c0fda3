"""Session metrics: what each session read and searched, kept in memory per session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sari_core.kernel.manager import hookimpl
from sari_core.kernel.sessions import Session
from sari_core.models import ReadCall, ReadResult, SearchCall, SearchResult

NAMESPACE = "sari.metrics"


@dataclass
class SessionMetrics:
    reads_count: int = 0
    reads_lines_total: int = 0
    reads_chars_total: int = 0
    search_count: int = 0
    reads_after_search: int = 0
    max_read_span: int = 0
    preview_degraded_count: int = 0

    def snapshot(self) -> dict[str, Any]:
        reads = self.reads_count
        return {
            "reads_count": reads,
            "reads_lines_total": self.reads_lines_total,
            "reads_chars_total": self.reads_chars_total,
            "search_count": self.search_count,
            "read_after_search_ratio": round(self.reads_after_search / reads, 4) if reads else 0.0,
            "avg_read_span": round(self.reads_lines_total / reads, 2) if reads else 0.0,
            "max_read_span": self.max_read_span,
            "preview_degraded_count": self.preview_degraded_count,
        }


class SessionMetricsPlugin:
    """Counts what each session read and searched; shown in ``metrics_snapshot``."""

    @staticmethod
    def metrics(session: Session) -> SessionMetrics:
        return session.namespace(NAMESPACE, SessionMetrics)

    @hookimpl(trylast=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> None:
        metrics = self.metrics(session)
        span = result.lines_returned
        with session.lock:
            metrics.reads_count += 1
            metrics.reads_lines_total += span
            metrics.reads_chars_total += len(result.text)
            metrics.max_read_span = max(metrics.max_read_span, span)
            if metrics.search_count:
                metrics.reads_after_search += 1
            if result.preview_degraded:
                metrics.preview_degraded_count += 1

    @hookimpl
    def on_search_complete(self, call: SearchCall, result: SearchResult, session: Session) -> None:
        metrics = self.metrics(session)
        with session.lock:
            metrics.search_count += 1

    @hookimpl
    def sari_collect_metrics(self, session: Session) -> dict[str, Any]:
        return self.metrics(session).snapshot()
