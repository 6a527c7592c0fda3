"""Draw docs/img/otel-trace.png: the span waterfall of a refused-then-served read.

The spans are real: a kernel with sari-refgate and sari-otel (exporting to memory)
serves an agent's turn — a read without a search ref (refused), the search, the
read of the search's candidate (served) — under the agent's own span, as a client
passing ``_meta.traceparent`` would. Needs sari-refgate and matplotlib installed.

Usage: ``python plugins/sari-otel/scripts/trace_picture.py [OUTPUT.png]``
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from sari_core.kernel import Kernel  # noqa: E402
from sari_otel import OtelPlugin  # noqa: E402
from sari_refgate.plugin import RefgatePlugin  # noqa: E402

SOURCE = '''def parse_header(line):
    key, _, value = line.partition(":")
    return key.strip().lower(), value.strip()


def parse_headers(lines):
    return dict(parse_header(line) for line in lines if line)
'''


def record_turn(root: Path) -> list[ReadableSpan]:
    (root / "http").mkdir(parents=True)
    (root / "http" / "headers.py").write_text(SOURCE, encoding="utf-8")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with Kernel(roots=[root], plugins=[OtelPlugin(tracer_provider=provider), RefgatePlugin()],
                load_entry_points=False, analytics_sinks=[]) as kernel:
        kernel.engine.ensure_index(progress=False)
        with provider.get_tracer("agent").start_as_current_span("agent turn"):
            refused = kernel.execute_read({"mode": "file", "target": "http/headers.py"})
            found = kernel.execute_search({"query": "parse_header"})
            served = kernel.execute_read({"mode": "file", "target": "http/headers.py",
                                          "candidate_id": found["matches"][0]["candidate_id"]})
    assert not refused["ok"] and served["ok"], (refused, served)
    return list(exporter.get_finished_spans())


def draw(spans: list[ReadableSpan], output: Path) -> None:
    turn = next(s for s in spans if s.name == "agent turn")
    origin = turn.start_time
    by_parent: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        by_parent.setdefault(span.parent.span_id if span.parent else None, []).append(span)
    rows: list[tuple[int, ReadableSpan]] = []

    def walk(span: ReadableSpan, depth: int) -> None:
        rows.append((depth, span))
        for child in sorted(by_parent.get(span.context.span_id, []), key=lambda s: s.start_time):
            walk(child, depth + 1)

    walk(turn, 0)
    figure, axes = plt.subplots(figsize=(10, 0.55 * len(rows) + 1.2), dpi=110)
    scale = 1e6  # ns -> ms
    for index, (depth, span) in enumerate(rows):
        start = (span.start_time - origin) / scale
        width = max((span.end_time - span.start_time) / scale, 0.02)
        failed = span.status.status_code.name == "ERROR"
        colour = "#d9534f" if failed else "#5b8def" if span.name.startswith("tools/") else \
            "#9aa5b1" if span.name == "agent turn" else "#47b39c"
        axes.barh(index, width, left=start, height=0.6, color=colour)
        label = "  " * depth + span.name
        if failed:
            label += f"  [{span.attributes.get('error.type')}]"
        axes.text(-0.01, index, label, ha="right", va="center", fontsize=9,
                  transform=axes.get_yaxis_transform())
        for event in span.events:
            if event.name != "sari.policy.verdict":
                continue
            at = (event.timestamp - origin) / scale
            axes.plot([at], [index], marker="v", color="black", markersize=7)
            codes = ",".join(event.attributes.get("sari.policy.reason_codes", ()))
            axes.annotate(f"{event.attributes['sari.policy.name']}: "
                          f"{event.attributes['sari.policy.action']} {codes}",
                          (at, index), xytext=(4, -12), textcoords="offset points",
                          fontsize=7.5)
    axes.set_yticks([])
    axes.invert_yaxis()
    axes.set_xlabel("milliseconds since the start of the agent's turn")
    axes.set_title("One trace: a read refused by sari-refgate, the search, the read served")
    axes.spines[["top", "right", "left"]].set_visible(False)
    figure.subplots_adjust(left=0.36, right=0.97, top=0.9, bottom=0.12)
    figure.savefig(output)


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/img/otel-trace.png")
    with tempfile.TemporaryDirectory(prefix="sari-otel-picture-") as scratch:
        spans = record_turn(Path(scratch) / "ws")
    draw(spans, output)
    print(f"{output}: {len(spans)} spans")


if __name__ == "__main__":
    main()
