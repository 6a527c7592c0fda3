"""The fuzz campaign's restart arm (see fuzz_restart.py): after hostile config writes, every
restarted server answers, keeps the canary secret and runs no planted command.

CI runs a few rounds; a longer run on demand::

    SARI_FUZZ_RESTARTS=40 pytest -q tests/security/test_fuzz_restart.py -s
"""

from __future__ import annotations

import importlib.util
import json
import os

import anyio
import pytest
from fuzz_restart import SEED, RestartCounts, run_restart_arm

CI_ROUNDS = 6


@pytest.fixture(scope="module")
def restart_arm(tmp_path_factory: pytest.TempPathFactory) -> RestartCounts:
    rounds = int(os.environ.get("SARI_FUZZ_RESTARTS", CI_ROUNDS))
    counts = anyio.run(lambda: run_restart_arm(tmp_path_factory.mktemp("restart"),
                                               rounds=rounds, seed=SEED))
    print(json.dumps({"arm": "restart", "seed": SEED, **counts.as_dict()}))
    return counts


def test_every_restarted_server_answers_and_takes_an_edit(restart_arm: RestartCounts) -> None:
    report = restart_arm.as_dict()
    assert restart_arm.writes >= restart_arm.rounds > 0, report
    assert restart_arm.started == restart_arm.rounds, report
    assert restart_arm.reads_ok == restart_arm.edits_ok == restart_arm.rounds, report


@pytest.mark.skipif(importlib.util.find_spec("sari_secretguard") is None,
                    reason="the secret is guarded by sari-secretguard, not installed")
def test_the_canary_secret_stays_refused_after_every_restart(
        restart_arm: RestartCounts) -> None:
    assert restart_arm.secret_refused == restart_arm.rounds, restart_arm.as_dict()
    assert restart_arm.leaked == 0, restart_arm.as_dict()


@pytest.mark.skipif(importlib.util.find_spec("sari_budget") is None,
                    reason="the read budget is sari-budget's")
def test_the_read_budget_holds_after_every_restart(restart_arm: RestartCounts) -> None:
    """Neither a fresh session_id argument per read nor a workspace's session lifetime opens
    a new budget."""
    assert restart_arm.over_budget == 0, restart_arm.as_dict()


@pytest.mark.skipif(importlib.util.find_spec("sari_lspgate") is None,
                    reason="validators and language servers run only with sari-lspgate")
def test_no_planted_command_runs_after_a_restart(restart_arm: RestartCounts) -> None:
    assert restart_arm.edits_ok == restart_arm.rounds and restart_arm.ran == 0, \
        restart_arm.as_dict()
