"""``bench/index_parse.py --smoke``: every stage of an index worker's CPU and the digest."""

from __future__ import annotations

import re

from bench_modules import run_smoke


def test_the_index_parse_bench_prints_every_stage_and_the_output_digest() -> None:
    out = run_smoke("index_parse")
    assert re.search(r"\d+ source files, [\d.]+ MB", out), out
    for stage in ("parse", "query", "symbols", "words", "other", "transport", "worker"):
        assert re.search(rf"^{stage} +-?[\d.]+ CPU-s +-?\d+% +([\d.]+|-) MB per CPU-s$", out,
                         re.M), stage
    assert re.search(r"^output digest \(symbols and word chunks\): [0-9a-f]{64}$", out, re.M), out
