"""The fuzz campaign (see fuzz_campaign.py) over stdio and over HTTP: nothing hangs, escapes,
leaks or runs, and ``ping`` is answered throughout.

A short budget here (about 20 seconds of calls per transport); a long run on demand::

    SARI_FUZZ_SECONDS=600 SARI_FUZZ_CALLS=100000 SARI_FUZZ_REPORT=fuzz.json \\
        pytest -q tests/security/test_fuzz_campaign.py -s
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from fuzz_campaign import SEED, make_arena, run_campaign

pytest.importorskip("sari_secretguard")

CI_CALLS = 400
CI_SECONDS = 20.0


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_campaign_finds_nothing_hung_escaped_leaked_or_run(
        tmp_path: Path, transport: str) -> None:
    from fuzz_campaign import budget_from_env

    calls, seconds = budget_from_env(CI_CALLS, CI_SECONDS)
    arena = make_arena(tmp_path)
    counts = await run_campaign(arena, transport, calls=calls, seconds=seconds, seed=SEED)
    report = {"transport": transport, "seed": SEED, **counts.as_dict()}
    print(json.dumps(report))
    if os.environ.get("SARI_FUZZ_REPORT"):
        with open(os.environ["SARI_FUZZ_REPORT"], "a", encoding="utf-8") as out:
            out.write(json.dumps(report) + "\n")
    assert counts.tries > 20 and counts.pings > 0, report
    assert counts.hung == 0 and counts.pings_late == 0, report
    assert counts.escaped == 0 and counts.leaked == 0 and counts.ran == 0, report
    assert counts.internal == 0, report
    assert counts.at_rest == 0, (report, arena.files_at_rest())
    if importlib.util.find_spec("sari_budget") is not None:
        assert counts.reads_served > 0 and counts.over_budget == 0, report
