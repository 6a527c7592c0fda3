"""Every full read can be rebuilt, byte for byte, from the compressed stream."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from aggregation_workspace import BIG, FILES, LONG, OTHER, TINY, build_engine, change_on_disk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sari_aggregation import AggregationPlugin, ReconstructionError, Reconstructor
from sari_core import Kernel

TARGETS = (LONG, OTHER, TINY)


def kernels_over(root: Path, *plugins: object) -> tuple[Kernel, Kernel]:
    """A kernel with the policies, and a policy-free one whose reads are the truth."""
    policed = Kernel(build_engine(root, FILES), plugins=list(plugins), load_entry_points=False,
                     analytics_sinks=[])
    core = Kernel(build_engine(root, FILES), load_entry_points=False, analytics_sinks=[])
    return policed, core


def replay(policed: Kernel, core: Kernel, steps: list[Any]) -> list[tuple[str, str]]:
    """Run ``steps`` (read arguments, or ("change", path, text)) through both kernels.

    :return: (reconstructed text, truth) for every read.
    """
    rebuild = Reconstructor()
    pairs = []
    for step in steps:
        if isinstance(step, tuple):
            _, path, text = step
            change_on_disk(policed, path, text)
            change_on_disk(core, path, text)
            continue
        truth = core.execute_read(step)
        response = policed.execute_read(step)
        assert response["ok"] == truth["ok"]
        if response["ok"]:
            pairs.append((rebuild.feed(response), truth["text"]))
    return pairs


SCRIPT: list[Any] = [
    {"mode": "file", "target": LONG},
    {"mode": "file", "target": LONG},
    {"mode": "snippet", "target": LONG, "start_line": 30, "end_line": 80},
    {"mode": "file", "target": OTHER, "offset": 5, "limit": 10},
    {"mode": "file", "target": OTHER},
    {"mode": "snippet", "target": OTHER, "start_line": 1, "end_line": 40},
    ("change", LONG, FILES[LONG].replace("line 50\n", "line 50 changed\n")),
    {"mode": "snippet", "target": LONG, "start_line": 40, "end_line": 60},
    {"mode": "file", "target": LONG},
    {"mode": "file", "target": TINY},
    {"mode": "file", "target": TINY},
    {"mode": "file", "target": LONG, "offset": 100},
]


def test_a_scripted_session_rebuilds_exactly(tmp_path: Path) -> None:
    policed, core = kernels_over(tmp_path, AggregationPlugin())
    pairs = replay(policed, core, SCRIPT)
    assert len(pairs) == 11
    for rebuilt, truth in pairs:
        assert rebuilt == truth
    policed.close()
    core.close()


def test_the_stream_is_smaller_than_the_reads(tmp_path: Path) -> None:
    policed, core = kernels_over(tmp_path, AggregationPlugin())
    steps = [step for step in SCRIPT if not isinstance(step, tuple)]
    policed_chars = sum(len(policed.execute_read(step)["text"]) for step in steps)
    core_chars = sum(len(core.execute_read(step)["text"]) for step in steps)
    assert policed_chars < core_chars * 0.6


def test_a_reference_to_lines_never_seen_is_an_error() -> None:
    response = {"ok": True, "text": "[sari] x lines 1-2 ...\n", "meta": {
        "preview_degraded": False, "stabilization": {"annotations": {"aggregation": {
            "context_item": 2, "path": "x", "segments": [{"lines": [1, 2], "item": 1}]}}}}}
    with pytest.raises(ReconstructionError):
        Reconstructor().feed(response)


read_steps = st.one_of(
    st.builds(lambda target, offset, limit: {"mode": "file", "target": target, "offset": offset,
                                             "limit": limit},
              st.sampled_from(TARGETS), st.integers(0, 130), st.integers(1, 130)),
    st.builds(lambda target: {"mode": "file", "target": target}, st.sampled_from(TARGETS)),
    st.builds(lambda target, start, span: {"mode": "snippet", "target": target,
                                           "start_line": start, "end_line": start + span},
              st.sampled_from(TARGETS), st.integers(1, 120), st.integers(0, 60)),
)
change_steps = st.builds(
    lambda target, line: ("change", target,
                          FILES[target].replace(f"{line}", f"{line}!", 1)),
    st.sampled_from(TARGETS), st.integers(1, 3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(read_steps, read_steps, read_steps, change_steps), min_size=1,
                max_size=14))
def test_any_sequence_of_reads_rebuilds_exactly(steps: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        policed, core = kernels_over(Path(folder), AggregationPlugin())
        try:
            for rebuilt, truth in replay(policed, core, steps):
                assert rebuilt == truth
        finally:
            policed.close()
            core.close()


def test_with_the_budget_trimming_every_delivered_line_rebuilds(tmp_path: Path) -> None:
    budget = pytest.importorskip("sari_budget")
    policed, core = kernels_over(tmp_path, AggregationPlugin(), budget.BudgetPlugin())
    rebuild = Reconstructor()
    steps: list[tuple[dict[str, Any], int]] = [
        # (read, lines it rebuilds to)
        ({"mode": "file", "target": BIG}, 300),  # trimmed to the 300-line cap
        # Lines 1-300 become one reference, so the trim lets lines 301-599 through:
        # a re-read makes progress instead of repeating what the session holds.
        ({"mode": "file", "target": BIG}, 599),
        ({"mode": "snippet", "target": BIG, "start_line": 250, "end_line": 700}, 451),
        # 591-599 and 600-700 are two references (items 2 and 3), then 701-998 verbatim.
        ({"mode": "file", "target": BIG, "offset": 591}, 408),
    ]
    for step, expected_lines in steps:
        response = policed.execute_read(step)
        assert response["ok"]
        assert response["text"].count("\n") <= 300
        rebuilt = rebuild.feed(response)
        truth = core.execute_read(step)["text"]
        assert truth.startswith(rebuilt)  # a trimmed read rebuilds to a prefix, never wrong
        assert rebuilt.count("\n") == expected_lines
    policed.close()
    core.close()
