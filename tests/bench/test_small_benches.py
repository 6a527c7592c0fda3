"""The smaller benches' smoke modes (a tiny corpus, one repetition, seconds): each must finish
with status 0 and print its figures, so a bench that breaks fails here."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from bench_modules import load_bench, run_smoke

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_secretguard_bench_prints_both_p50s_and_leaves_the_secret_file_out() -> None:
    pytest.importorskip("sari_secretguard", reason="the bench compares a kernel with secretguard")
    out = run_smoke("secretguard_search")
    assert re.search(r"search p50 without secretguard: [\d.]+ ms", out), out
    assert re.search(r"search p50 with secretguard: +[\d.]+ ms +\(ratio [\d.]+x\)", out), out
    found = re.search(r"summed over the queries: (\d+) without, (\d+) with", out)
    assert found, out
    assert int(found[2]) < int(found[1]), "the smoke corpus's .env file must be left out"


def test_the_change_detection_bench_prints_every_mode_and_the_ratio() -> None:
    out = run_smoke("changes")
    for mode in ("watch", "sweep", "sweep/0"):
        assert re.search(rf"^{re.escape(mode)} +\w+ +\d+µs +\d+µs +[\d.]+ms$", out, re.M), mode
    assert re.search(r"every-call sweep/watch: idle [\d.]+x, one-file [\d.]+x", out), out


@pytest.mark.skipif(shutil.which("git") is None, reason="the script reads a git repository")
def test_the_commit_rounds_script_writes_each_round_with_its_statuses() -> None:
    header, *rounds = [json.loads(line) for line in run_smoke("commit_rounds").splitlines()]
    assert header["repo"] == "smoke/rounds" and header["rounds"] == len(rounds) == 3
    assert header["last_commit"] == rounds[-1]["commit"]
    statuses = [{(file["path"], file["status"], file["bytes"]) for file in one["files"]}
                for one in rounds]
    # The binary file of the second round is left out; a deleted file has 0 bytes.
    assert statuses == [{("a.py", "A", 6), ("b.py", "A", 6)}, {("a.py", "M", 7)},
                        {("b.py", "D", 0)}]


def test_the_read_paths_bench_prints_the_build_and_both_ratios_to_a_plain_open() -> None:
    out = run_smoke("read_paths")
    assert re.search(r"^build: [\d.]+ s cold \([\d,]+ files, [\d.]+ MB\)$", out, re.M), out
    assert re.search(r"^read: +engine snippet p50 \d+ us, plain open\+read p50 \d+ us, "
                     r"ratio [\d.]+x$", out, re.M), out
    assert re.search(r"^open: +no-follow walk p50 [\d.]+ us, os\.open\(path\) p50 [\d.]+ us, "
                     r"ratio [\d.]+x$", out, re.M), out


def test_the_hook_overhead_bench_prints_every_row_and_both_targets() -> None:
    out = run_smoke("hook_overhead")
    for count in (0, 1, 7):
        assert re.search(rf"^{count} trivial plugins +[\d.]+ +[\d.]+ +-?[\d.]+$", out, re.M)
        assert re.search(rf"^{count} +[\d.]+ +[\d.]+$", out, re.M), count  # pluggy beside Sari
    assert re.search(r"whole-read cost per plugin .* = -?[\d.]+x pluggy's "
                     r"\(target: at most 1\.5x\)", out), out
    assert re.search(r"7 trivial plugins add -?[\d.]+ µs per read .* \(target: under 10 µs\)",
                     out), out
    try:
        import sari_otel  # noqa: F401
    except ImportError:
        assert "sari-otel rows skipped" in out
    else:
        assert re.search(r"spans exported to memory: \d+ for 1000 calls, dropped calls: 0", out)
    # Each client hook type beside a no-op hook of the same type.
    for hook_type, label in (("command", "no-op hook"), ("command", "Sari thin client"),
                             ("command", "sari hook claude-code pre-tool-use"),
                             ("http", "no-op call"), ("http", "Read"),
                             ("http", "Grep for a definition (body shown)"),
                             ("mcp_tool", "no-op call"), ("mcp_tool", "Read"),
                             ("mcp_tool", "Grep for a definition (body shown)")):
        assert re.search(rf"^{hook_type} +{re.escape(label)}.* [\d.]+ +[\d.]+ +[\d.]+x$", out,
                         re.M), (hook_type, label, out)
    assert re.search(r"Codex's command hook \(thin client \+ server\): [\d.]+ ms CPU per call "
                     r"\(target: at most 50\)", out), out


def test_the_lsp_gate_bench_prints_warm_and_cold_rows_their_ratios_and_the_target() -> None:
    pytest.importorskip("sari_lspgate", reason="the bench drives sari-lspgate's warm servers")
    for checker in ("ruff", "basedpyright"):
        if not (shutil.which(checker, path=str(Path(sys.executable).parent))
                or shutil.which(checker)):
            pytest.skip(f"{checker} is not installed (sari-lspgate brings it)")
    out = run_smoke("lsp_gate")
    for row in ("warm ruff", "warm basedpyright", "warm gate (ruff + basedpyright)",
                "cold ruff check FILE", "cold basedpyright FILE"):
        assert re.search(rf"^{re.escape(row)} +[\d.]+ +[\d.]+ ", out, re.M), row
    # The second edit of the sequence introduces an error: every warm row must see it.
    assert len(re.findall(r"^warm .* [1-9]\d* edits with errors$", out, re.M)) == 3, out
    for label in ("ruff", "basedpyright", "gate vs cold both"):
        assert re.search(rf"ratio cold/warm {re.escape(label)} +p50 +[\d.]+x +p95 +[\d.]+x",
                         out), label
    assert re.search(r"^target: warm basedpyright >= 5x faster than cold basedpyright at p50: "
                     r"(met|NOT met) \([\d.]+x\)$", out, re.M), out


def test_the_replay_bench_prints_each_session_the_ablation_and_the_target() -> None:
    for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
        pytest.importorskip(policy, reason="the bench replays with the four default policies")
    out = run_smoke("replay_tokens", "--ablation")
    for session in ("json-indent", "textwrap-dedent", "heapq-merge", "total"):
        assert re.search(rf"^{session} +\d+ +\d+ +-?\d+% +\d+/\d+ +\d+ +\d+/\d+$", out, re.M), \
            session
    for row in ("budget", "relevance", "aggregation", "refgate", "budget+aggregation"):
        assert re.search(rf"^{re.escape(row)} +\d+ +-?[\d.]+% +\d+ +\d+/\d+$", out, re.M), row
    # Every arm's agent gets every line it needs, and every rebuilt read is the file's own.
    needed = re.search(r"needed lines delivered: core (\d+)/(\d+), policies (\d+)/(\d+)", out)
    assert needed and needed[1] == needed[2] == needed[3] == needed[4] != "0", out
    rebuilt = re.search(r"identical to the file's lines: (\d+)/(\d+)", out)
    assert rebuilt and rebuilt[1] == rebuilt[2] != "0", out
    assert re.search(r"^target \(>= 50% fewer tokens, every needed line delivered\): "
                     r"(met|NOT met)$", out, re.M), out


def test_the_context_query_text_bench_prints_both_sizes_and_answers_do_not_grow() -> None:
    pytest.importorskip("sari_persistence", reason="context_query is sari-persistence's tool")
    out = run_smoke("context_query_text")
    sizes = re.findall(r"^text query, asked the \d\. time +text +(\d+) B .* text/JSON "
                       r"([\d.]+)x$", out, re.M)
    assert len(sizes) == 2, out
    assert sizes[0][0] == sizes[1][0]  # an answer does not hold the one before it
    assert all(float(ratio) < 1 for _, ratio in sizes)
    assert re.search(r"^team-wide query \(another session\) +text +\d+ B", out, re.M), out


def test_the_cli_exit_bench_prints_cold_indexed_and_rg_rows_and_the_target() -> None:
    out = run_smoke("cli_exit")
    for row in ("sari search, never indexed", "sari search, indexed", "rg -l (peer)"):
        assert row in out
    assert "cold / indexed:" in out and "target <= 2.0x" in out


def test_the_regex_mcp_bench_prints_every_pattern_beside_rg_and_both_targets() -> None:
    out = run_smoke("regex_mcp")
    assert r"[A-Z]{4,}_[A-Z]{4,} = " in out and r"self\.\w+" in out
    assert "targets: p50" in out and "p95" in out


def test_the_symbol_cpu_bench_prints_both_sides_and_the_target() -> None:
    out = run_smoke("symbol_cpu")
    assert "FrobnicatedHandlerFactory" in out
    assert "narrowed: p50" in out and "whole scan: p50" in out and "target p95 <= 50 ms" in out


@pytest.mark.skipif(shutil.which("ctags") is None, reason="universal-ctags is the bench's truth")
def test_the_definitions_bench_prints_coverage_and_mrr_per_language() -> None:
    out = run_smoke("definitions_coverage")
    for language in ("go", "javascript"):
        assert re.search(rf"^{language}: .* coverage [\d.]+ \(\d+/\d+\)", out, re.M), out
    assert len(re.findall(r"definition MRR@10 over \d+ queries: sari [\d.]+, rg [\d.]+", out)) == 2


def test_the_definitions_bench_asks_the_search_a_client_gets_when_it_names_no_kind(
        tmp_path: Path) -> None:
    # No line holds the words as written: only the search that understands words finds the
    # function; the literal-only text search finds nothing.
    from sari_core.engine import Workspace

    coverage = load_bench("definitions_coverage")
    root = tmp_path / "tree"
    root.mkdir()
    (root / "retry.ts").write_text(
        "export function retryUpload(file: string): boolean {\n  return send(file);\n}\n",
        encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite", watch=False) as workspace:
        workspace.ensure_index(progress=False)
        assert ("retry.ts", 1) in coverage.sari_ranked(workspace, "retry upload")
