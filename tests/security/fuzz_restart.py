"""The fuzz campaign's restart arm: hostile config writes, then a new server on that workspace.

A workspace config is read when the server starts, so the writes of the main campaign only
reach the session that follows them. Here each round, drawn with a fixed seed, has the
agent ``write`` Sari's own workspace config (``sari.toml`` and ``[tool.sari.*]`` of
``pyproject.toml``): invalid TOML, an lspgate validator or language server that touches a
marker file, secretguard switched off, budget limits raised, an ``exclude`` of the wrong
type, a workspace ``.venv/bin/python`` that touches a marker, and every setting a workspace
may not loosen set to a looser value (a one-read session lifetime, a spoofed machine name, a
thinned log, a wider match window...). Then the server is restarted (a new ``sari serve``
process over stdio, official MCP client) and must:

* start and answer ``initialize``, ``ping`` and a ``read``;
* hold the read budget: reads that each name a fresh ``session_id``, spaced past the looser
  session lifetime, are still counted in one session (at most its 25 served);
* take an edit of a ``.py`` file (what runs validators) without running a planted command;
* still refuse ``.env`` and never return the canary secret in it.

The restarted server of one round is the writer of the next, so ``rounds`` rounds start
``rounds + 1`` servers.
"""

from __future__ import annotations

import importlib.util
import json
import random
import secrets
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
from looser_settings import looser_workspace_config
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from sari_stdio import body, isolated_env, read_past_refgate

SEED = 20261126
START_DEADLINE_SECONDS = 60.0  # a cold start with every plugin on a loaded 2-core machine

_VALIDATOR = ('command_validators = [{{name = "x", command = ["sh", "-c", "touch {marker}"], '
              'patterns = ["*.py"], parser = "gnu"}}]\n')
_SERVER = ('language_servers = [{{name = "x", command = ["sh", "-c", "touch {marker}"], '
           'patterns = ["*.py"]}}]\n')
_GUARD_OFF = 'blocked_globs = []\nallowed_globs = [".env"]\nredact = false\n'
_BUDGET_UP = ("max_reads_per_session = 1000000000\nmax_total_read_lines = 1000000000\n"
              "max_single_read_lines = 1000000000\n")

# (path, template): ``{marker}`` becomes a fresh marker file outside the workspace.
# Every setting a workspace may not loosen, loosened at once; a one-read session lifetime.
EVERY_SETTING = ("sari.toml", looser_workspace_config("{marker}").replace("{", "{{")
                 .replace("}", "}}").replace("{{marker}}", "{marker}"))
LIFETIME = ("sari.toml", "[core]\nsession_ttl_seconds = 0.05\n[budget]\n"
                         "min_match_window_lines = 100000\n")
HOSTILE_CONFIGS: list[tuple[str, str]] = [
    ("sari.toml", "[lspgate\n" + _VALIDATOR),
    ("sari.toml", "[lspgate]\n" + _VALIDATOR),
    ("sari.toml", "[lspgate]\n" + _SERVER),
    ("sari.toml", "[secretguard]\n" + _GUARD_OFF),
    ("sari.toml", "[budget]\n" + _BUDGET_UP),
    ("sari.toml", "exclude = 5\n"),
    ("sari.toml", "exclude = 5\n[lspgate]\n" + _VALIDATOR + "[secretguard]\n" + _GUARD_OFF
     + "[budget]\n" + _BUDGET_UP),
    ("pyproject.toml", "[tool.sari.lspgate]\n" + _VALIDATOR),
    ("pyproject.toml", "[tool.sari.lspgate]\n" + _SERVER),
    ("pyproject.toml", "[tool.sari.secretguard]\n" + _GUARD_OFF),
    ("pyproject.toml", "[tool.sari.budget]\n" + _BUDGET_UP),
    ("pyproject.toml", "[tool.sari]\nexclude = [1, 2]\n"),
    ("pyproject.toml", "[project\n[tool.sari.lspgate]\n" + _VALIDATOR),
    (".venv/bin/python", "#!/bin/sh\ntouch {marker}\n"),
    (".venv/pyvenv.cfg", "home = /usr/bin\n"),
    EVERY_SETTING,
    LIFETIME,
]
# Written last in the first rounds, whatever else is drawn, so a restart always faces them.
FIRST_ROUNDS = (EVERY_SETTING, LIFETIME)
# The read budget a restarted server must hold (sari-budget's default).
READ_BUDGET = 25


@dataclass
class RestartCounts:
    rounds: int = 0
    writes: int = 0  # hostile config files written (each answered ok)
    started: int = 0  # restarted servers that answered initialize and ping
    reads_ok: int = 0  # a plain read answered ok after the restart
    edits_ok: int = 0  # a .py edit answered ok after the restart
    secret_refused: int = 0  # the .env read answered ok: false
    leaked: int = 0  # the canary secret in any result
    ran: int = 0  # marker files a planted command touched
    over_budget: int = 0  # reads served beyond the budget (fresh session_id arguments)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def make_restart_workspace(base: Path) -> tuple[Path, Path, str]:
    """The workspace, a markers folder outside it, and the canary secret in its ``.env``."""
    workspace, markers = base / "ws", base / "markers"
    (workspace / "pkg").mkdir(parents=True)
    markers.mkdir()
    (workspace / "pkg" / "calc.py").write_text("def add(a: int, b: int) -> int:\n"
                                               "    return a + b\n", encoding="utf-8")
    canary = "sk_live_" + secrets.token_hex(12)
    (workspace / ".env").write_text(f"DB_PASSWORD={canary}\n", encoding="utf-8")
    return workspace, markers, canary


def _env(base: Path) -> dict[str, str]:
    # The operator switches the Python language servers off: the arm is about what the
    # workspace config makes run, and a real server start per round would not fit CI.
    return {**isolated_env(base / "server"), "SARI_LSPGATE__BASEDPYRIGHT": "false",
            "SARI_LSPGATE__RUFF": "false"}


def _seen(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False)


async def run_restart_arm(base: Path, *, rounds: int, seed: int = SEED) -> RestartCounts:
    workspace, markers, canary = make_restart_workspace(base)
    rng = random.Random(seed)
    counts = RestartCounts()
    env = _env(base)
    params = StdioServerParameters(
        command=sys.executable, env=env,
        args=["-m", "sari_core.cli.main", "serve", "--workspace", str(workspace)])
    planted = 0
    with (base / "servers.log").open("w", encoding="utf-8") as errlog:
        for round_number in range(rounds + 1):
            with anyio.fail_after(START_DEADLINE_SECONDS * 2):
                async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                                  read_timeout_seconds=START_DEADLINE_SECONDS) as client:
                    if round_number:  # a restart after the previous round's writes
                        await _check_restarted(client, counts, canary)
                    if round_number == rounds:
                        break
                    counts.rounds += 1
                    drawn = rng.sample(HOSTILE_CONFIGS, rng.randint(1, 3))
                    if round_number < len(FIRST_ROUNDS):
                        drawn.append(FIRST_ROUNDS[round_number])
                    for path, template in drawn:
                        planted += 1
                        content = template.format(marker=markers / f"ran-{planted}")
                        reply = body(await client.call_tool("write", {"path": path,
                                                                      "content": content}))
                        counts.writes += reply.get("ok") is True
    counts.ran = sum(1 for _ in markers.iterdir())
    return counts


async def _check_restarted(client: Client, counts: RestartCounts, canary: str) -> None:
    await client.send_ping()  # initialize was answered when the client connected
    counts.started += 1
    results = [await read_past_refgate(client, {"mode": "file", "target": "pkg/calc.py"})]
    counts.reads_ok += results[-1].get("ok") is True
    edit = await client.call_tool("edit", {"path": "pkg/calc.py", "old_string": "a + b",
                                           "new_string": "b + a"})
    counts.edits_ok += body(edit).get("ok") is True
    await client.call_tool("edit", {"path": "pkg/calc.py", "old_string": "b + a",
                                    "new_string": "a + b"})
    secret = await read_past_refgate(client, {"mode": "file", "target": ".env"})
    counts.secret_refused += secret.get("ok") is False
    search = await client.call_tool("search", {"query": "DB_PASSWORD"})
    seen = [json.dumps(reply) for reply in (*results, secret)] + [_seen(edit), _seen(search)]
    counts.leaked += any(canary in text for text in seen)
    if importlib.util.find_spec("sari_budget") is not None:
        served = 1  # the read above
        for number in range(READ_BUDGET + 1):
            await anyio.sleep(0.06)  # past a workspace's session lifetime of 0.05 s
            reply = await client.call_tool("read", {"mode": "file", "target": "pkg/calc.py",
                                                    "session_id": f"fresh-{number}"})
            served += body(reply).get("ok") is True
        counts.over_budget += max(0, served - READ_BUDGET)
