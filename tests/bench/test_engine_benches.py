"""The engine's benches run: each one's smoke mode (a tiny corpus, one repetition) must
finish with status 0 and print its figures, so a bench that breaks fails here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench_modules import run_smoke

BENCH = Path(__file__).resolve().parents[2] / "bench"



def test_the_search_bench_prints_every_figure_beside_ripgrep_and_git_grep() -> None:
    out = run_smoke("search", "--parse", "on-demand")
    for label in ("first answer", "first phase", "complete build", "index size", "literal",
                  "regex", "symbol", "rg", "git grep", "targets"):
        assert label in out, label
    # the build parsing on demand beside the eager one, and each first navigation on both
    assert "-- parsing on demand" in out
    assert "first navigation, CPU summed" in out and "answers the same" in out, out
    assert "the same queries in one session" in out
    # beside each wall-clock p50/p95, the searching thread's CPU (robust on a loaded machine)
    cpu_lines = [line for line in out.splitlines() if "sari thread CPU p50" in line]
    assert len(cpu_lines) == 3, out
    assert "literal CPU p95 / p50" in out.split("targets:", 1)[1]
    assert "first phase MB per CPU-s" in out.split("targets:", 1)[1]
    answers = [line for line in out.splitlines() if line.startswith("first answer (")]
    assert len(answers) == 3 and all("right: yes" in line for line in answers), answers
    assert any("tools/call to answer" in line for line in answers), answers
    # The build's own peak memory, apart from what reading the index back for the counts adds.
    assert "once the bench's own counting queries have read the index" in out


def test_the_first_answer_bench_runs_alone_and_beside_a_baseline() -> None:
    out = run_smoke("first_answer", "--baseline-python", sys.executable)
    rows = [line.strip() for line in out.splitlines() if line.startswith("  ")]
    assert [row.split()[0] for row in rows] == ["this", "baseline"], out
    assert all("tools/call -> answer" in row and row.endswith("finds: 2/2") for row in rows), out


def test_the_regex_bench_runs() -> None:
    out = run_smoke("regex_search")
    assert "RE2 ms" in out and "NO" not in out.split("agree", 1)[1]


def test_the_regex_routing_bench_runs() -> None:
    out = run_smoke("regex_routing")
    assert "tuning: the index path" in out and "held-out: the index path" in out


def test_the_startup_bench_runs() -> None:
    out = run_smoke("startup")
    assert "initialize reply" in out
    # the hook command's CPU per event, beside the bare interpreter and `sari --version`
    hooks = out.split("hook command CPU", 1)[1]
    for label in ("python -c pass", "sari --version", "hook claude-code post-tool-use",
                  "hook claude-code stop"):
        assert label in hooks, label


@pytest.mark.skipif(sys.platform == "win32", reason="the load bench spawns POSIX servers")
def test_the_mcp_load_bench_runs_and_reads_the_text_reply() -> None:
    out = run_smoke("mcp_load")
    assert "errors 0" in out and "200-line read round trip" in out
